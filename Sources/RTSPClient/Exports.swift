// What a session's user names comes with `import RTSPClient`: Credentials, RTSPClientError and its codes,
// RTSPURL and the track types live in the sans-I/O RTSP module, which users need not know about.
@_exported import RTSP
