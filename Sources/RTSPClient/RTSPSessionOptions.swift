import CoreMetrics
import Logging
import RTP
@_spi(SansIO) import RTSP
import SDP

/// How an ``RTSPSession`` connects, authenticates, receives and gives up.
public struct RTSPSessionOptions: Sendable {
    /// How `rtsps://` checks the server: the system's trusted CAs and the URL's host, unless told otherwise.
    public struct TLS: Sendable, Hashable {
        /// PEM files of certificates to trust instead of the system's (a camera's own CA, or its self-signed
        /// certificate).
        public var trustedCertificateFiles: [String]
        /// False accepts any certificate: for a lab camera only, never across a network you do not control.
        public var verifiesCertificate: Bool

        public init(trustedCertificateFiles: [String] = [], verifiesCertificate: Bool = true) {
            self.trustedCertificateFiles = trustedCertificateFiles
            self.verifiesCertificate = verifiesCertificate
        }
    }

    /// How RTP travels from the server.
    public enum Transport: String, Sendable, Hashable, CaseIterable {
        /// Interleaved in the RTSP connection (`$` frames): works through NAT and firewalls, never reorders.
        case tcp
        /// RTP and RTCP on a UDP port pair per track; the first packets sent open the NAT.
        case udp
        /// UDP first; TCP when no packet arrives within ``RTSPSessionOptions/udpFallbackTimeout``.
        case auto
        /// UDP multicast: the server names a group and ports per track, the client joins them. With
        /// ``RTSPSessionOptions/udpFallbackTimeout`` like `.auto`: TCP when nothing arrives.
        case multicast
        /// RTSP, and RTP interleaved in it, tunnelled through HTTP (QuickTime's tunnel: a GET carries the
        /// server's side, a POST the client's in base64) to the URL's host and port, for cameras behind
        /// firewalls that pass only HTTP (ONVIF Profile S devices serve it, often on port 80). With
        /// `rtsps://`, the tunnel runs over TLS. A tunnel the server guards with HTTP authentication gets
        /// the session's credentials.
        case http

        /// Whether RTP travels inside the RTSP connection (`.tcp`, `.http`).
        public var isInterleaved: Bool { self == .tcp || self == .http }
    }

    /// Default `.tcp`: the transport that works wherever the RTSP connection does.
    public var transport: Transport
    /// The kinds of track to set up (of those offered in a codec this library takes): a session plays every
    /// video and audio track unless told otherwise. An audio track the server refuses is left out (and
    /// logged); the session goes on with the others. Default: video and audio.
    public var mediaKinds: Set<MediaKind> = [.video, .audio]
    /// Playing a recording (an NVR, a camera's storage): where PLAY starts (`Range`, `npt=` or `clock=`),
    /// how fast (`Scale`, `Speed`), `Rate-Control: no`, and ONVIF replay (`Require: onvif-replay`; units are
    /// then dated with the time they were recorded). Nil: live. ``RTSPSession/seek(_:)`` moves while playing.
    public var playback: PlaybackRequest?
    /// Headers added to every request the session sends, given its method: a vendor's token, a `User-Agent`
    /// a camera insists on. They never replace the session's own (`CSeq`, `Session`, `Authorization`,
    /// `Transport`, `Range`, `Require`, `Accept`, `Content-Length`).
    public var additionalHeaders: (@Sendable (RTSPMethod) -> [(name: String, value: String)])?
    /// Ask the camera for its ONVIF audio backchannel (`Require: www.onvif.org/ver20/backchannel`): its
    /// `a=sendonly` audio track is set up beside the others, and ``RTSPSession/backchannel`` sends on it. A camera
    /// without one answers 551, and the session fails with `.unsupported`.
    public var backchannel = false
    /// Credentials given through the API; they take precedence over those in the URL. Either way they are
    /// sent only to the URL's origin (scheme, host and port): a redirect to another one continues without
    /// them, and a 401 there fails with `.unauthorized`, naming that server.
    public var credentials: Credentials?
    /// How long to wait for the TCP connection. Default 5 s.
    public var connectTimeout: Duration
    /// How long to wait for an answer to each request. Default 10 s. A keepalive left unanswered is given up
    /// sooner, at the next keepalive's time (half the session timeout), and the next one uses another method.
    public var requestTimeout: Duration
    /// How long the whole set-up may take, from connecting to PLAY's answer (for a stepwise session, each
    /// of describe, setup and play), redirects and the fallback to TCP included; past it the session ends
    /// with `.timeout`. Default 30 s.
    public var setupTimeout: Duration = .seconds(30)
    /// With `.auto`: how long to wait for the first UDP packet after PLAY before switching to TCP. Default 3 s.
    public var udpFallbackTimeout: Duration
    /// While playing: how long without any RTP or RTCP before the session fails with `.noMedia`. Default 10 s.
    /// The client sends TEARDOWN first (the RTSP connection may be alive when only the media is blocked), so
    /// the error arrives when it is answered or after ``teardownTimeout``.
    public var inactivityTimeout: Duration
    /// How long without media while playing is told as a stall (``RTSPSessionEvent/stalled(silence:)``), and its
    /// end as a recovery: a health signal shorter than ``inactivityTimeout``. Default 2 s.
    public var stallThreshold: Duration = .seconds(2)
    /// The share of a track's packets lost over ``lossWindow`` that is told as sustained loss
    /// (``RTSPSessionEvent/lossy(track:fraction:)``), and its end as ``RTSPSessionEvent/lossCleared(track:)``.
    /// Default 0.05 (5 %); above 1, never told.
    public var lossThreshold = 0.05
    /// The window ``lossThreshold`` is measured over. Default 5 s.
    public var lossWindow: Duration = .seconds(5)
    /// How far a track's capture times may move against its RTP time, from one dated unit to the next, before it is
    /// told as the sender's clock jumping (``RTSPSessionEvent/clockJumped(track:by:)``). Default 1 s (a sender's
    /// drift between two reports is milliseconds).
    public var clockJumpThreshold: Duration = .seconds(1)
    /// How often RTCP receiver reports go to the server (RFC 3550 allows 5 s as the minimum). Default 5 s.
    public var receiverReportInterval: Duration
    /// Packets held for a consumer that falls behind; past this, what arrives is dropped (and counted in
    /// ``RTSPSessionStatistics/droppedByConsumer``) until it catches up. Default 4096 (seconds of 4K video).
    public var packetBufferCapacity: Int
    /// The same bound in bytes of RTP packets: the first of the two reached applies. Default 32 MiB.
    public var packetBufferByteCapacity = 32 << 20
    /// Redirects followed before giving up. Default 5.
    public var maxRedirects: Int
    /// The first UDP port to try for the RTP/RTCP pairs; nil picks a random even port. Default nil.
    public var firstUDPPort: UInt16?
    /// The kernel's receive buffer for each UDP socket of RTP and RTCP (`SO_RCVBUF`): what holds a key
    /// picture's burst of packets while the event loop is busy; past it the kernel drops them (loss). Linux
    /// caps it at `net.core.rmem_max` (raise that for high bit rates); a process that may (root,
    /// `CAP_NET_ADMIN`) gets it past the cap (`SO_RCVBUFFORCE`, as GStreamer's `udpsrc`). 0 leaves the
    /// system's default. Default 512 KiB, as GStreamer's rtspsrc asks.
    public var udpReceiveBufferBytes = 512 << 10
    /// With UDP: send the packets that open the NAT, and the receiver reports, to the `source=` address of
    /// the server's Transport answer when it names one, instead of to the address the RTSP connection
    /// reached. For a server whose media comes from another host of yours. Default false: otherwise a
    /// server (or anyone who can answer for it) chooses which host this client sends to.
    public var sendsToTransportSource = false
    /// Opt-in: when the session breaks (the connection drops, the server restarts, the media stops), play
    /// again after a growing delay, and go on with the same sequences of packets, access units and frames; the
    /// first of each track after the break is flagged (``RTSPReceivedPacket/isDiscontinuity``,
    /// `AccessUnit.isDiscontinuity`). ``RTSPSession/statistics()`` counts the reconnects and the time without
    /// media. Applies once the session has played: a session that cannot be set up at all fails at once.
    /// Default nil: a break ends the session with its error.
    public var reconnection: Reconnection?
    /// How long TEARDOWN may take before the connection is closed anyway. Default 2 s.
    public var teardownTimeout: Duration
    /// Limits on what the server may send on the RTSP connection.
    public var framerLimits: RTSPMessageLimits
    /// Certificate checks for `rtsps://`. Default: verified against the system's CAs.
    public var tls: TLS
    /// Where the session tells what it does and what it met: connecting, redirects, the transport played, the
    /// fallback to TCP, how it ended (info and debug); the first of each kind of dropped packet, change of
    /// source, loss and camera quirk per track (notice and warning; the rest are counted in
    /// ``RTSPSession/statistics()``). Never a credential; peer text escaped. Default: silent.
    public var logger = Logger(label: "swift-rtp", factory: { _ in SwiftLogNoOpLogHandler() })
    /// The `session` dimension of the session's metrics, published through swift-metrics (`rtsp_client_...`: per
    /// track packets, bytes, lost, duplicates, reordered, late, jitter, units, sender reports and the sender's clock
    /// offset; per session reconnects, time without media, whether it plays): a name of the application's, one
    /// per camera (not its address: a metric's dimensions must stay few). The figures are those of
    /// ``RTSPSession/statistics()``, published every second and when the session ends. Default nil: none.
    public var metricsName: String?
    /// Where the metrics go; nil: `MetricsSystem.factory` when the session starts (the backend the process
    /// bootstrapped, else none).
    public var metricsFactory: (any MetricsFactory)?
    /// For a consumer that hands packets on at once (a forwarder, a queue of its own): each read's packets,
    /// and the tracks' sender reports that came with them (apply those first: they date the packets), go to
    /// this closure on the session's event loop thread instead of to ``RTSPSession/packets`` and the
    /// sequences made of it (which then only end, as the session does). No thread hop and no allocation per
    /// read; no backlog bound either (``packetBufferCapacity`` bounds the sequences): the closure must return
    /// quickly and may not keep the slice past the call (copy what it keeps). Default nil: iterate the
    /// session's sequences.
    public var packetHandler: (@Sendable (ArraySlice<RTSPReceivedPacket>, [ReceivedSenderReport]) -> Void)?

    public init(
        transport: Transport = .tcp, credentials: Credentials? = nil, connectTimeout: Duration = .seconds(5),
        requestTimeout: Duration = .seconds(10), udpFallbackTimeout: Duration = .seconds(3),
        inactivityTimeout: Duration = .seconds(10), receiverReportInterval: Duration = .seconds(5),
        packetBufferCapacity: Int = 4096, maxRedirects: Int = 5, firstUDPPort: UInt16? = nil,
        teardownTimeout: Duration = .seconds(2), framerLimits: RTSPMessageLimits = .init(), tls: TLS = .init()
    ) {
        self.tls = tls
        self.transport = transport
        self.credentials = credentials
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.udpFallbackTimeout = udpFallbackTimeout
        self.inactivityTimeout = inactivityTimeout
        self.receiverReportInterval = receiverReportInterval
        self.packetBufferCapacity = packetBufferCapacity
        self.maxRedirects = maxRedirects
        self.firstUDPPort = firstUDPPort
        self.teardownTimeout = teardownTimeout
        self.framerLimits = framerLimits
    }
}
