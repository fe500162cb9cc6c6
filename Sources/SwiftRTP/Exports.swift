// One import for an application: everything a session, a capture, the pipeline and decoding hand out is
// nameable after `import SwiftRTP` (AccessUnit, AudioFrame, I420Frame, PCMFrame, WallClockTime, VideoCodec,
// RTSPSession, ...). The modules below stay importable on their own for those who want less (access units
// without FFmpeg or libsrtp, say).
@_exported import Audio
@_exported import AudioDecoding
@_exported import FFmpegDecoding
@_exported import H26x
@_exported import JPEG
@_exported import MediaDecoding
@_exported import MediaPipeline
@_exported import Metadata
@_exported import MP4
@_exported import PacketCapture
@_exported import RTP
@_exported import RTPTransport
@_exported import RTSP
@_exported import RTSPCapture
@_exported import RTSPClient
@_exported import RTSPServer
@_exported import SDP
@_exported import SRTP
@_exported import VideoDecoding
@_exported import WebRTCServer
// What the WebRTC server's API throws; the sans-I/O WebRTC machinery (offers, answers, peers) stays behind it.
@_exported import struct WebRTC.WebRTCError
