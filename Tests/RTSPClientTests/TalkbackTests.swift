import Foundation
import NIOConcurrencyHelpers
import SwiftRTP
import RTSPServer
import Testing

/// The talkback's floor and timeline, without sockets: one viewer talks at a time; another's voice is dropped
/// until the talker has been silent for the floor's release or has left; frames come out on one timeline whoever
/// talks, a new talker's after the last frame by the silence between them.
@Suite struct TalkbackTests {
    static let pcmu = AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000)
    let t0 = ArrivalTime(nanoseconds: 5_000_000_000)

    /// A 20 ms G.711 packet of a viewer's stream: sequence `number`, its own timestamp base.
    static func voice(_ number: UInt16, base: UInt32, payloadType: UInt8 = 0) throws -> RTPPacket {
        try RTPPacket(
            RTPPacketBuilder(
                payloadType: payloadType, sequenceNumber: number, timestamp: base &+ 160 * UInt32(number),
                ssrc: UInt32(base), payload: [UInt8](repeating: 0x7F, count: 160)
            ).bytes())
    }

    @Test func oneViewerTalksAtATimeOnOneTimeline() throws {
        let delivered = NIOLockedValueBox<[AudioFrame]>([])
        let talkback = try Talkback(format: Self.pcmu) { frame in delivered.withLockedValue { $0.append(frame) } }
        // A talks for 60 ms; B, meanwhile and 500 ms later, is dropped.
        for number in 0..<3 { talkback.take(try Self.voice(UInt16(number), base: 90_000), from: "A", now: t0) }
        talkback.take(try Self.voice(0, base: 7), from: "B", now: t0 + .milliseconds(500))
        #expect(talkback.frameCounts == (delivered: 3, dropped: 1))
        // A silent for the release (1 s): B takes the floor, its first frame 1.5 s of ticks after A's last ended.
        // B's packets are in its own payload type (what its offer gave PCMU).
        talkback.take(try Self.voice(1, base: 7, payloadType: 8), from: "B", now: t0 + .milliseconds(1500))
        talkback.take(try Self.voice(2, base: 7, payloadType: 8), from: "B", now: t0 + .milliseconds(1520))
        let frames = delivered.withLockedValue { $0 }
        let silence: UInt64 = 12_000  // 1.5 s at 8 kHz
        let expected: [UInt64] = [0, 160, 320, 480 + silence, 480 + silence + 160]
        #expect(frames.map(\.timestamp) == expected)
        #expect(frames.allSatisfy { $0.sampleCount == 160 && $0.codec == .pcmu && $0.clockRate == 8000 })
        // B leaves: A may talk at once.
        talkback.left("B")
        talkback.take(try Self.voice(3, base: 90_000), from: "A", now: t0 + .milliseconds(1600))
        #expect(talkback.frameCounts == (delivered: 6, dropped: 1))
        let afterB: UInt64 = 480 + silence + 320 + 640  // B's end, and the 80 ms since
        #expect(delivered.withLockedValue { $0.last?.timestamp } == afterB)
    }

    /// A viewer that floods (a minute of voice at once) is held to real time: what runs more than half a second
    /// ahead of the time it has been talking is dropped, and it goes on as time passes.
    @Test func aFloodingTalkerIsHeldToRealTime() throws {
        let delivered = NIOLockedValueBox(0)
        let talkback = try Talkback(format: Self.pcmu) { _ in delivered.withLockedValue { $0 += 1 } }
        for number in 0..<3000 { talkback.take(try Self.voice(UInt16(number), base: 1), from: "A", now: t0) }
        #expect(talkback.frameCounts == (delivered: 25, dropped: 2975))  // 500 ms of 20 ms frames
        talkback.take(try Self.voice(3000, base: 1), from: "A", now: t0 + .seconds(60))
        #expect(talkback.frameCounts.delivered == 26)
    }

    /// A format this library takes no frames of is refused when the talkback is made, with the reason.
    @Test func aFormatWithoutFramesIsRefused() {
        let odd = AudioFormat(codec: .l16, payloadType: 96, clockRate: 8000, channels: 0)
        #expect(throws: AudioError.self) { try Talkback(format: odd) { _ in } }
    }
}
