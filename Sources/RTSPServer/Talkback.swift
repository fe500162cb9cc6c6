import Audio
import RTP
import SDP
import Synchronization

/// Where viewers' voices go (two-way audio: a relayed camera's ONVIF backchannel, an intercom). Mounted with a
/// source, on an ``RTSPServer`` (``RTSPServer/mount(_:at:multicast:talkback:)``: a viewer that asks for the ONVIF
/// backchannel, `Require: www.onvif.org/ver20/backchannel`, is offered a track in ``format`` to send on) or on a
/// `WebRTCServer` (a viewer whose offer sends audio is asked for ``format``: a browser sends G.711, G.722 and
/// Opus), it takes viewers' packets as they came, without re-encoding. A viewer that cannot send in that format
/// plays without talking.
///
/// One viewer talks at a time, whichever server it came by: the first whose voice comes holds the floor until it
/// has been silent for ``floorRelease`` or has left; another's voice meanwhile is dropped (and counted), as is a
/// talker's voice that runs more than ``maxAhead`` ahead of the time it has been talking (a viewer that floods is
/// held to real time, so the camera's connection carries no more than a voice). Each frame goes to `deliver` on the
/// thread that received it, in ticks of the format's clock on one timeline whoever talks (a new talker's first
/// frame comes after the last frame delivered by the time that passed between them): what
/// `RTSPBackchannel.send(_:)` takes.
///
/// ```swift
/// let camera = try await RTSPSession.connect(to: url, options: .init(backchannel: true))
/// if let backchannel = camera.backchannel {
///     let talkback = try Talkback(format: backchannel.format) { backchannel.send($0) }
///     server.mount(source, at: "/camera", talkback: talkback)
/// }
/// ```
public final class Talkback: Sendable {
    /// What the destination takes, and what viewers are asked to send.
    public let format: AudioFormat
    /// How long the viewer that talks may be silent before another may talk.
    public let floorRelease: Duration
    /// How far a talker's voice may run ahead of the time since it began (its jitter, a burst after a stall).
    public let maxAhead: Duration = .milliseconds(500)
    private let deliver: @Sendable (AudioFrame) -> Void
    private let state = Mutex(State())

    struct State {
        /// The viewer that holds the floor, and when its voice last came.
        var talker: String?
        var lastHeard: ArrivalTime?
        /// The talker's packets into frames (made for its payload type when it takes the floor).
        var depacketizer: AudioDepacketizer?
        /// The talker's first frame's timestamp, where that falls on the talkback's timeline, and when it came.
        var origin: (talker: UInt64, timeline: UInt64, at: ArrivalTime)?
        /// Where the timeline is: the end of the last frame delivered, and when that was.
        var end: UInt64 = 0
        var endedAt: ArrivalTime?
        var delivered = 0
        var dropped = 0
    }

    /// A talkback in `format` (a camera's backchannel's), delivering each frame to `deliver`.
    /// - Throws: `AudioError` when the format is one this library does not take frames of.
    public init(
        format: AudioFormat, floorRelease: Duration = .seconds(1),
        deliver: @escaping @Sendable (AudioFrame) -> Void
    ) throws(AudioError) {
        do {
            _ = try AudioDepacketizer(format: format)
        } catch {
            throw AudioError("a talkback of \(format.encodingName)/\(format.clockRate) cannot be taken: \(error)")
        }
        self.format = format
        self.floorRelease = floorRelease
        self.deliver = deliver
    }

    /// Frames delivered, and frames dropped (of viewers that did not hold the floor, or ahead of real time).
    public var frameCounts: (delivered: Int, dropped: Int) { state.withLock { ($0.delivered, $0.dropped) } }

    /// A packet of `viewer`'s voice: delivered when it holds the floor or may take it.
    package func take(_ packet: RTPPacket, from viewer: String, now: ArrivalTime) {
        let frames = state.withLock { state -> [AudioFrame] in
            if let talker = state.talker, talker != viewer, let last = state.lastHeard, now - last < floorRelease {
                state.dropped += 1
                return []
            }
            if state.talker != viewer {
                var format = self.format
                format.payloadType = packet.payloadType
                state.talker = viewer
                state.depacketizer = try? AudioDepacketizer(format: format)
                state.origin = nil
            }
            state.lastHeard = now
            state.depacketizer?.push(packet)
            var frames: [AudioFrame] = []
            while let frame = state.depacketizer?.nextFrame() {
                func ticks(_ duration: Duration) -> UInt64 {
                    UInt64(max(.zero, duration) / .milliseconds(1)) * UInt64(frame.clockRate) / 1000
                }
                let silence = state.endedAt.map { ticks(now - $0) } ?? 0
                let origin = state.origin ?? (frame.timestamp, state.end &+ silence, now)
                state.origin = origin
                let elapsed = frame.timestamp &- origin.talker &+ UInt64(frame.sampleCount)
                guard elapsed <= ticks(now - origin.at + maxAhead) else {
                    state.dropped += 1
                    continue
                }
                let timestamp = origin.timeline &+ (frame.timestamp &- origin.talker)
                state.end = max(state.end, timestamp &+ UInt64(frame.sampleCount))
                state.endedAt = now
                frames.append(
                    AudioFrame(
                        codec: frame.codec, timestamp: timestamp, clockRate: frame.clockRate,
                        sampleCount: frame.sampleCount, bytes: frame.bytes, ssrc: frame.ssrc))
            }
            state.delivered += frames.count
            return frames
        }
        for frame in frames { deliver(frame) }
    }

    /// `viewer` left: the floor is free at once if it held it.
    package func left(_ viewer: String) {
        state.withLock { state in
            guard state.talker == viewer else { return }
            state.talker = nil
            state.depacketizer = nil
        }
    }
}
