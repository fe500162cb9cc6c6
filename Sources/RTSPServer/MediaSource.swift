import MediaPipeline
import NIOCore
import RTP
import SDP
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
    /// The formats of its tracks, in order: what DESCRIBE announces.
    public let formats: [MediaFormat]
    /// The SRTP key's `a=crypto` value when its media is SRTP: DESCRIBE announces it (RFC 4568 SDES).
    public let cryptoAttribute: String?
    private let state: Mutex<State>

    struct State: ~Copyable {
        var tracks: [Track]
        var subscribers: [ObjectIdentifier: Subscriber] = [:]
        var subscriberWaiters: [CheckedContinuation<Void, Never>] = []
        var isFinished = false
        /// Protects every packet and report when the source is keyed.
        let srtp: SRTPSender?
        /// The packet being protected (reused).
        var scratch: [UInt8] = []
        /// Units skipped for clients that have left.
        var skippedBefore = 0
        let allocator = ByteBufferAllocator()
    }

    /// A class, so that its packetizer and its sender are mutated in place side by side (the packetizer's
    /// closure numbers the packets it makes).
    final class Track {
        var packetizer: Packetizer
        var sender: RTPSender
        let isVideo: Bool
        /// Added to the units' timestamps so that they keep rising.
        var timestampShift: UInt64 = 0
        var lastTimestamp: UInt64?
        var lastStep: UInt64 = 0

        init(packetizer: Packetizer, sender: RTPSender, isVideo: Bool) {
            self.packetizer = packetizer
            self.sender = sender
            self.isVideo = isVideo
        }
    }

    /// A source of tracks of `formats` (each must be one a ``Packetizer`` sends). `maxPayloadSize` bounds each
    /// RTP payload. With `srtpKey`, every packet and report is SRTP (`RTP/SAVP`), the key announced in the session
    /// description (send that only over RTSPS or a network you trust). Throws ``PacketizerError`` for a format it
    /// cannot send, `SRTPError` when libsrtp2 cannot be loaded or refuses the key.
    public init(formats: [MediaFormat], maxPayloadSize: Int = RTPSender.defaultMaxPayloadSize, srtpKey: SRTPKey? = nil) throws {
        self.formats = formats
        cryptoAttribute = srtpKey?.cryptoAttribute
        let srtp = try srtpKey.map { key throws(SRTPError) in try SRTPSender(key: key) }
        var tracks: [Track] = []
        for format in formats {
            let packetizer = try Packetizer(format: format, maxPayloadSize: maxPayloadSize)
            tracks.append(
                Track(
                    packetizer: packetizer, sender: RTPSender(payloadType: format.payloadType, clockRate: format.clockRate),
                    isVideo: format.kind == .video))
        }
        state = Mutex(State(tracks: tracks, srtp: srtp))
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
        let time = capturedAt ?? unit.captureTime ?? WallClockTime.now()
        let index = track ?? unit.track
        state.withLock { state in
            guard !state.isFinished, state.tracks.indices.contains(index) else { return }
            let track = state.tracks[index]
            let timestamp = track.shifted(unit.timestamp)
            var batch = state.allocator.buffer(capacity: Self.size(of: unit) + 64)
            var packets = 0
            let channel = UInt8(truncatingIfNeeded: index * 2)
            let srtp = state.srtp
            var scratch: [UInt8] = []
            swap(&scratch, &state.scratch)
            track.packetizer.packetize(unit) { payload, marker, pieceTimestamp in
                let header = track.sender.nextHeader(
                    marker: marker, timestamp: timestamp &+ (pieceTimestamp &- unit.timestamp),
                    payloadSize: payload.count, capturedAt: time)
                // SRTP: the packet is made and protected first (its length is known only then).
                var protected: [UInt8]?
                if let srtp {
                    scratch.removeAll(keepingCapacity: true)
                    header.append(to: &scratch)
                    scratch.append(contentsOf: payload)
                    guard let packet = try? srtp.protect(scratch) else { return }
                    protected = packet
                }
                batch.writeInteger(UInt8(0x24))
                batch.writeInteger(channel)
                batch.writeInteger(UInt16(truncatingIfNeeded: protected?.count ?? 12 + payload.count))
                if let protected {
                    batch.writeBytes(protected)
                } else {
                    batch.writeInteger(header.first)
                    batch.writeInteger(header.timestamp)
                    batch.writeInteger(header.ssrc)
                    batch.writeBytes(payload)
                }
                packets += 1
            }
            swap(&scratch, &state.scratch)
            guard packets > 0, !state.subscribers.isEmpty else { return }
            let isKeyframe = unit.accessUnit?.isKeyframe ?? false
            for subscriber in state.subscribers.values {
                subscriber.deliver(track: index, packets: batch, isVideo: track.isVideo, isKeyframe: isKeyframe)
            }
        }
    }

    /// Ends the source: every client gets an RTCP BYE (players end there, and tear their session down), and
    /// nothing more is sent.
    public func finish() {
        state.withLock { state in
            guard !state.isFinished else { return }
            state.isFinished = true
            for waiter in state.subscriberWaiters { waiter.resume() }
            state.subscriberWaiters = []
            for (index, track) in state.tracks.enumerated() {
                var compound = RTCPCompoundBuilder()
                if let report = track.sender.senderReport(at: WallClockTime.now()) {
                    compound.appendSenderReport(report)
                } else {
                    compound.appendReceiverReport(RTCPReceiverReport(ssrc: track.sender.ssrc, reportBlocks: []))
                }
                compound.appendGoodbye(ssrcs: [track.sender.ssrc], reason: "end of stream")
                guard let bytes = state.protectedReport(compound.bytes) else { continue }
                for subscriber in state.subscribers.values {
                    subscriber.deliverReport(track: index, bytes: bytes, allocator: state.allocator)
                }
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
    func subscribe(_ subscriber: Subscriber, starting: ([Int: (sequenceNumber: UInt16, rtpTime: UInt32)]) -> Void) -> Bool {
        let now = WallClockTime.now()
        return state.withLock { state in
            guard !state.isFinished else { return false }
            var positions: [Int: (UInt16, UInt32)] = [:]
            for (index, track) in state.tracks.enumerated() {
                let rtpTime = track.sender.senderReport(at: now)?.rtpTimestamp ?? track.sender.rtpTimestamp(0)
                positions[index] = (track.sender.nextSequenceNumber, rtpTime)
            }
            starting(positions)
            state.subscribers[ObjectIdentifier(subscriber)] = subscriber
            for waiter in state.subscriberWaiters { waiter.resume() }
            state.subscriberWaiters = []
            return true
        }
    }

    func unsubscribe(_ subscriber: Subscriber) {
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
    func sendReports(now: WallClockTime, canonicalName: String) {
        state.withLock { state in
            guard !state.subscribers.isEmpty else { return }
            for (index, track) in state.tracks.enumerated() {
                guard let report = track.sender.senderReport(at: now) else { continue }
                var compound = RTCPCompoundBuilder()
                compound.appendSenderReport(report)
                compound.appendCanonicalName(canonicalName, ssrc: track.sender.ssrc)
                guard let bytes = state.protectedReport(compound.bytes) else { continue }
                for subscriber in state.subscribers.values {
                    subscriber.deliverReport(track: index, bytes: bytes, allocator: state.allocator)
                }
            }
        }
    }
}

extension MediaSource.State {
    /// An RTCP compound as it is sent: SRTCP when the source is keyed (nil if libsrtp refuses it).
    func protectedReport(_ bytes: [UInt8]) -> [UInt8]? {
        guard let srtp else { return bytes }
        return try? srtp.protectRTCP(bytes)
    }
}

extension MediaSource.Track {
    /// `timestamp` moved by the track's shift: the first unit's time is 0 (the RTP time a PLAY answer gives a
    /// client that comes before any packet), and the shift grows when a timestamp would go back.
    func shifted(_ timestamp: UInt64) -> UInt64 {
        if lastTimestamp == nil { timestampShift = 0 &- timestamp }
        var moved = timestamp &+ timestampShift
        if let last = lastTimestamp {
            if moved > last {
                lastStep = min(moved - last, 1 << 20)
            } else if moved < last {
                timestampShift = last &+ max(lastStep, 1) &- timestamp
                moved = timestamp &+ timestampShift
            }
        }
        lastTimestamp = moved
        return moved
    }
}
