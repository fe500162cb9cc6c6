import SwiftRTP
import Testing

/// A downstream package's view: this test target depends on the `SwiftRTP` product alone and imports
/// nothing else of the library, so every name used here must come through that one import.
@Suite struct OneImportTests {
    /// What the session, capture and decoding APIs hand out, named after one import.
    @Test func theTypesAnApplicationMeetsAreNameable() throws {
        let types: [Any.Type] = [
            AccessUnit.self, WallClockTime.self, I420Frame.self, PCMFrame.self, AudioFrame.self, VideoCodec.self,
            RTSPSession.self, RTSPSessionOptions.self, RTSPClientError.self, RTSPSessionEvent.self,
            MediaPipeline.self, CaptureTracks.self, CaptureFile.self, FFmpegVideoDecoder.self,
            FFmpegAudioDecoder.self, PCMChunker.self, LatestFrameSink.self, RTPPacket.self, SessionDescription.self,
        ]
        #expect(types.count == 19)
        // And used: a capture through the pipeline, as the README's capture example does.
        let url = try RTSPURL("rtsp://camera.local/stream")
        #expect(url.port == 554)
        #expect(VideoCodec(encodingName: "H265") == .h265)
    }
}
