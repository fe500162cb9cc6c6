import H26x
import MediaPipeline
import NIOCore
import RTP
import SDP
@_spi(SansIO) import RTPTransport
import SRTP
import Synchronization

/// Media a server serves: the units an application pushes (an encoder's output, a relayed camera, a replayed
/// file), packetized once per track and handed to every client that plays it.
///
/// ```swift
/// let source = try MediaSource(formats: [.video(VideoFormat(parameterSets: sets))])
/// server.mount(source, at: "/camera")
/// source.push(.video(AccessUnit(codec: .h264, timestamp: ticks, annexB: encoded)))
/// ```
///
/// Each track is one RTP stream (one SSRC, one sequence) whatever the number of clients: a client that joins
/// starts at the stream's next packet, and video at its next keyframe. A client that does not read (its
/// connection's write buffer full) is skipped until it has room again and, for video, until the next keyframe:
/// it never holds the others back nor grows the server's memory past its connection's buffer.
///
/// Push from one task at a time: units go out in the order they are pushed. A unit's timestamp that goes back
/// (a file played again, a relay reconnected) is moved to follow the track's last one, so each stream's RTP
/// time keeps rising.
public final class MediaSource: Sendable {
    /// The formats of its tracks, in order: what DESCRIBE announces. An H.264 or H.265 track made without
    /// parameter sets (``init(video:srtpKey:)``) announces those of the first keyframe pushed, from then on.
    public var formats: [MediaFormat] { state.withLock { $0.formats } }
    /// The SRTP key's `a=crypto` value when its media is SRTP: DESCRIBE announces it (RFC 4568 SDES).
    public let cryptoAttribute: String?
    private let state: Mutex<State>

    struct State: ~Copyable {
        var formats: [MediaFormat]
        /// Each track's sending side: packetizer, RTP stream and the source's SRTP, one for every client.
        var tracks: [OutgoingTrack]
        var subscribers: [ObjectIdentifier: Subscriber] = [:]
        var subscriberWaiters: [CheckedContinuation<Void, Never>] = []
        var isFinished = false
        /// Units skipped for clients that have left.
        var skippedBefore = 0
        let allocator = ByteBufferAllocator()
        /// What sees each unit pushed, after its packets went out (a transcoder for other viewers).
        var observers: [@Sendable (MediaUnit, Int, WallClockTime) -> Void] = []
        /// Who is told of viewers' keyframe requests, and when each track's was last passed on.
        var keyframeHandler: (@Sendable (Int) -> Void)?
        var lastKeyframeRequest: [Int: ArrivalTime] = [:]
        var keyframeRequests = 0
        /// Each video track's packets since its latest keyframe (the group of pictures a new viewer that takes it
        /// starts from), and their bytes; emptied when it would pass ``MediaSource/groupCacheBytes``.
        var groups: [Int: (units: [FramedPackets], bytes: Int)] = [:]
    }

    /// The most bytes of packets kept per video track for viewers that start from the latest keyframe.
    public static let groupCacheBytes = 4 << 20

    /// A source of tracks of `formats` (each must be one a ``Packetizer`` sends). `maxPayloadSize` bounds each
    /// RTP payload. With `srtpKey`, every packet and report is SRTP (`RTP/SAVP`), the key announced in the session
    /// description (send that only over RTSPS or a network you trust). Throws ``PacketizerError`` for a format it
    /// cannot send, `SRTPError` when libsrtp2 cannot be loaded or refuses the key.
    public convenience init(
        formats: [MediaFormat], maxPayloadSize: Int = RTPSender.defaultMaxPayloadSize, srtpKey: SRTPKey? = nil
    ) throws {
        try self.init(formats: formats, maxPayloadSize: maxPayloadSize, srtpKey: srtpKey, continuing: nil)
    }

    /// A source whose tracks go on the RTP streams of `continuing` (each track's SSRC, next sequence number and
    /// timestamp offset, as ``streams()`` gave them; nil: new streams): a recording played again in the same RTSP
    /// session (a seek) stays the same streams, as players expect (GStreamer's rtspsrc links one pad per SSRC).
    package init(
        formats: [MediaFormat], maxPayloadSize: Int = RTPSender.defaultMaxPayloadSize, srtpKey: SRTPKey? = nil,
        continuing streams: [Stream]?
    ) throws {
        cryptoAttribute = srtpKey?.cryptoAttribute
        // One SRTP context for every track: libsrtp's any-SSRC outbound policy.
        let srtp = try srtpKey.map { key throws(SRTPError) in try SRTPSender(key: key) }
        var tracks: [OutgoingTrack] = []
        for (index, format) in formats.enumerated() {
            let sender = streams.flatMap { $0.indices.contains(index) ? $0[index] : nil }.map {
                RTPSender(
                    payloadType: format.payloadType, clockRate: format.clockRate, ssrc: $0.ssrc,
                    firstSequenceNumber: $0.nextSequenceNumber, timestampOffset: $0.timestampOffset)
            }
            tracks.append(
                try OutgoingTrack(format: format, maxPayloadSize: maxPayloadSize, sender: sender, protection: srtp))
        }
        state = Mutex(State(formats: formats, tracks: tracks))
    }

    /// One track's RTP stream, as another source may go on with it.
    package struct Stream: Sendable {
        let ssrc: UInt32
        let nextSequenceNumber: UInt16
        let timestampOffset: UInt32
    }

    /// Each track's RTP stream as it is now.
    package func streams() -> [Stream] {
        state.withLock { state in
            state.tracks.map {
                Stream(
                    ssrc: $0.sender.ssrc, nextSequenceNumber: $0.sender.nextSequenceNumber,
                    timestampOffset: $0.sender.timestampOffset)
            }
        }
    }

    /// A source of one video track of `codec` (payload type 96; Motion JPEG 26) whose format comes from what is
    /// pushed: H.264 and H.265 announce the parameter sets of the first keyframe (an encoder's or a file's
    /// Annex B, `AccessUnit(codec:timestamp:annexB:)`), as a server has them only once it starts.
    ///
    /// ```swift
    /// let source = try MediaSource(video: .h264)
    /// server.mount(source, at: "/camera")
    /// source.push(.video(AccessUnit(codec: .h264, timestamp: ticks, annexB: encoded)))
    /// ```
    public convenience init(video codec: VideoCodec, srtpKey: SRTPKey? = nil) throws {
        let format =
            codec == .jpeg
            ? VideoFormat(codec: .jpeg, payloadType: VideoFormat.jpegPayloadType)
            : VideoFormat(codec: codec, payloadType: 96, packetizationMode: codec == .h264 ? 1 : 0)
        try self.init(formats: [.video(format)], srtpKey: srtpKey)
    }

    /// Clients playing it now.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Returns once a client plays it (at once if one does).
    public func waitForSubscriber() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if !state.subscribers.isEmpty || state.isFinished { return true }
                state.subscriberWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Sends `unit` on `track` (by default its own, ``MediaUnit/track``) to every client playing it; units of a
    /// track it does not have are left out. `capturedAt` is the wall-clock time of the unit (by default its
    /// capture time, else now): what the sender reports pair RTP times with.
    public func push(_ unit: MediaUnit, track: Int? = nil, capturedAt: WallClockTime? = nil) {
        push(unit, track: track, capturedAt: capturedAt, headerExtension: nil)
    }

    /// Sends `unit` as ``push(_:track:capturedAt:)`` does, `headerExtension` in its first packet (a recording's
    /// ONVIF replay extension).
    func push(
        _ unit: MediaUnit, track: Int? = nil, capturedAt: WallClockTime? = nil,
        headerExtension: RTPHeaderExtension?
    ) {
        let time = capturedAt ?? unit.captureTime ?? WallClockTime.now()
        let index = track ?? unit.track
        let observers = state.withLock { state -> [@Sendable (MediaUnit, Int, WallClockTime) -> Void] in
            guard !state.isFinished, state.tracks.indices.contains(index) else { return [] }
            deliver(unit, track: index, capturedAt: time, headerExtension: headerExtension, state: &state)
            return state.observers
        }
        for observer in observers { observer(unit, index, time) }
    }

    /// Calls `handler` with a track's index when a viewer asks for a keyframe of it (a WebRTC viewer's PLI or FIR,
    /// after a loss it could not repair), at most once in 500 ms per track: an encoder that pushes into this source
    /// makes its next picture a keyframe. (A relayed camera cannot be asked: its viewers wait for its next one.)
    public func onKeyframeRequest(_ handler: @escaping @Sendable (Int) -> Void) {
        state.withLock { $0.keyframeHandler = handler }
    }

    /// Keyframe requests viewers made so far (each, passed on or not).
    public var keyframeRequests: Int { state.withLock { $0.keyframeRequests } }

    /// A viewer asks for a keyframe of `track`.
    package func requestKeyframe(track: Int, now: ArrivalTime = .now()) {
        let handler = state.withLock { state -> (@Sendable (Int) -> Void)? in
            state.keyframeRequests += 1
            if let last = state.lastKeyframeRequest[track], now - last < .milliseconds(500) { return nil }
            state.lastKeyframeRequest[track] = now
            return state.keyframeHandler
        }
        handler?(track)
    }

    /// Calls `observer` with each unit pushed from now on (its track and wall-clock time), on the pushing thread,
    /// after its packets went out.
    package func observe(_ observer: @escaping @Sendable (MediaUnit, Int, WallClockTime) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Packetizes `unit` once and hands its packets to every subscriber (under the state's lock).
    private func deliver(
        _ unit: MediaUnit, track index: Int, capturedAt time: WallClockTime, headerExtension: RTPHeaderExtension?,
        state: inout State
    ) {
        if case .video(let picture) = unit, picture.isKeyframe { state.learnParameterSets(of: picture, track: index) }
        // Packetized once, framed for the track's default channel (2 × index): every client's edge writes it.
        var packets = FramedPackets(
            channel: UInt8(truncatingIfNeeded: index * 2), capacity: Self.size(of: unit) + 64,
            allocator: state.allocator)
        guard state.tracks[index].send(unit, capturedAt: time, headerExtension: headerExtension, into: &packets) > 0
        else { return }
        let isVideo = state.formats[index].kind == .video
        let isKeyframe = unit.accessUnit?.isKeyframe ?? false
        if isVideo { state.keep(packets, track: index, isKeyframe: isKeyframe) }
        guard !state.subscribers.isEmpty else { return }
        for subscriber in state.subscribers.values {
            subscriber.deliver(track: index, packets: packets, isVideo: isVideo, isKeyframe: isKeyframe)
        }
    }

    /// Ends the source: nothing more is sent, and `linger` later (500 ms by default) every client gets an RTCP
    /// BYE (players end there, and tear their session down). The wait lets a UDP client read the last packets
    /// first: RTP and RTCP come on separate sockets, and FFmpeg, reading the BYE before them, ended a frame short.
    public func finish(lingering linger: Duration = .milliseconds(500)) {
        let first = state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            state.isFinished = true
            for waiter in state.subscriberWaiters { waiter.resume() }
            state.subscriberWaiters = []
            return true
        }
        guard first else { return }
        guard linger > .zero else { return sayGoodbye() }
        Task { [self] in
            try? await Task.sleep(for: linger)
            sayGoodbye()
        }
    }

    /// Each track's last report and BYE, to every client.
    private func sayGoodbye() {
        state.withLock { state in
            for (index, track) in state.tracks.enumerated() {
                guard let bytes = track.goodbye(at: WallClockTime.now(), reason: "end of stream") else { continue }
                for subscriber in state.subscribers.values { subscriber.deliverReport(track: index, bytes: bytes) }
            }
        }
    }

    /// The bytes of a unit's payload: what its packets hold, less their headers.
    private static func size(of unit: MediaUnit) -> Int {
        switch unit {
        case .video(let picture): picture.payloadSize + 4 * picture.nalUnits.count
        case .audio(let frame): frame.bytes.count
        case .metadata, .raw: 0
        }
    }

    /// Whether ``finish()`` was called.
    public var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Adds a client; `starting` runs first, under the same lock as the packets' hand-out, with where each
    /// track starts: the PLAY answer written there comes before the first packet.
    /// With `fromLatestKeyframe`, each video track's packets since its latest keyframe go to the new client at once,
    /// before anything newer: a WebRTC viewer shows a picture at once instead of a group of pictures later. (An RTSP
    /// client is told in RTP-Info where it starts, the next packet, and takes nothing older.)
    package func subscribe(
        _ subscriber: Subscriber, fromLatestKeyframe: Bool = false,
        starting: ([Int: (sequenceNumber: UInt16, rtpTime: UInt32)]) -> Void
    ) -> Bool {
        let now = WallClockTime.now()
        return state.withLock { state in
            guard !state.isFinished else { return false }
            starting(state.positions(at: now))
            if fromLatestKeyframe {
                for (index, group) in state.groups.sorted(by: { $0.key < $1.key }) {
                    for (position, packets) in group.units.enumerated() {
                        subscriber.deliver(track: index, packets: packets, isVideo: true, isKeyframe: position == 0)
                    }
                }
            }
            state.subscribers[ObjectIdentifier(subscriber)] = subscriber
            for waiter in state.subscriberWaiters { waiter.resume() }
            state.subscriberWaiters = []
            return true
        }
    }

    /// Where each track's stream is now (its next sequence number and RTP time): where a viewer joining a stream
    /// already sent (a multicast group's) starts. Nil once it has finished.
    package func positions() -> [Int: (sequenceNumber: UInt16, rtpTime: UInt32)]? {
        let now = WallClockTime.now()
        return state.withLock { state in
            guard !state.isFinished else { return nil }
            return state.positions(at: now)
        }
    }

    package func unsubscribe(_ subscriber: Subscriber) {
        state.withLock { state in
            guard let gone = state.subscribers.removeValue(forKey: ObjectIdentifier(subscriber)) else { return }
            state.skippedBefore += gone.skippedUnits
        }
    }

    /// Units not sent to a client, over all its clients so far: skipped while a client did not read (its
    /// connection's buffer full), and video up to a keyframe (after such a skip, and when a client joins).
    public var skippedUnits: Int {
        state.withLock { state in state.subscribers.values.reduce(state.skippedBefore) { $0 + $1.skippedUnits } }
    }

    /// Sends each track's sender report (with its SDES CNAME) to every client: what the server does every 5 s.
    package func sendReports(now: WallClockTime, canonicalName: String) {
        state.withLock { state in
            guard !state.subscribers.isEmpty else { return }
            for index in state.tracks.indices {
                state.sendReport(track: index, at: now, canonicalName: canonicalName)
            }
        }
    }

    /// Sends track `track`'s sender report pairing its last unit's RTP time with `time` (a recording played back:
    /// the wall clock it was recorded at, not now's).
    package func sendReport(track: Int, at time: WallClockTime, canonicalName: String) {
        state.withLock { state in
            guard state.tracks.indices.contains(track) else { return }
            state.sendReport(track: track, at: time, canonicalName: canonicalName)
        }
    }
}

extension MediaSource.State {
    /// Where each track's stream is at `now`: its next sequence number and RTP time.
    func positions(at now: WallClockTime) -> [Int: (sequenceNumber: UInt16, rtpTime: UInt32)] {
        var positions: [Int: (sequenceNumber: UInt16, rtpTime: UInt32)] = [:]
        for (index, track) in tracks.enumerated() { positions[index] = track.position(at: now) }
        return positions
    }

    /// Track `index`'s sender report at `time`, to every subscriber.
    func sendReport(track index: Int, at time: WallClockTime, canonicalName: String) {
        guard let bytes = tracks[index].report(at: time, canonicalName: canonicalName) else { return }
        for subscriber in subscribers.values { subscriber.deliverReport(track: index, bytes: bytes) }
    }

    /// Keeps a video unit's packets in its track's group: a keyframe starts the group again; a unit past the bytes
    /// allowed empties it until the next keyframe.
    mutating func keep(_ packets: FramedPackets, track index: Int, isKeyframe: Bool) {
        let size = packets.buffer.readableBytes
        if isKeyframe {
            groups[index] = size <= MediaSource.groupCacheBytes ? ([packets], size) : nil
        } else if var group = groups.removeValue(forKey: index), group.bytes + size <= MediaSource.groupCacheBytes {
            group.units.append(packets)  // taken out first: appended in place, not copied
            group.bytes += size
            groups[index] = group
        }
    }

    /// An H.264 or H.265 track announced without parameter sets takes those of `picture`, a keyframe, when it
    /// carries a whole set (SPS and PPS; and a VPS for H.265): DESCRIBE gives them from then on.
    mutating func learnParameterSets(of picture: AccessUnit, track index: Int) {
        guard case .video(let format) = formats[index], format.codec.isH26x, format.codec == picture.codec,
            format.parameterSetAttributes.isEmpty
        else { return }
        var sets = ParameterSets(codec: picture.codec)
        for nal in picture.nalUnits where nal.isParameterSet { sets.update(nal) }
        let types = Set(sets.all.map(\.type))
        let needed: Set<UInt8> = picture.codec == .h264 ? [7, 8] : [32, 33, 34]
        guard needed.isSubset(of: types) else { return }
        formats[index] = .video(VideoFormat(parameterSets: sets, payloadType: format.payloadType))
    }
}
