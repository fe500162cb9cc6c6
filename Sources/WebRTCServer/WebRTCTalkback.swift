import RTSPServer

/// The talkback's name before RTSP viewers could talk too: ``RTSPServer/Talkback``.
@available(*, deprecated, renamed: "Talkback")
public typealias WebRTCTalkback = Talkback
