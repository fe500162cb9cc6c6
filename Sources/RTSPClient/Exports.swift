// What a session's user names comes with `import RTSPClient`: Credentials, RTSPClientError and its codes,
// RTSPURL and the track types live in the sans-I/O RTSP module, and the tracks' formats (MediaFormat,
// VideoFormat, AudioFormat) and the session description in SDP; users need not know about either.
@_exported import RTSP
@_exported import SDP
