import NIOCore
@_spi(SansIO) @testable import RTSP
@testable import RTSPClient
import Testing

/// What an RTCP BYE means for a session, decided without sockets (`MediaState.goodbye`): the driver ends the
/// session when it says the stream is over.
@Suite struct GoodbyeTests {
    static func state(tracks count: Int) throws -> MediaState {
        let format = MediaFormat.video(VideoFormat(codec: .h264, payloadType: 96))
        let tracks = try (0..<count).map { index in
            RTSPTrack(control: try RTSPURL("rtsp://cam/live/track\(index)"), format: format)
        }
        var state = MediaState()
        state.configure(tracks: tracks, transport: .tcp, arrival: .now())
        return state
    }

    @Test func theStreamEndsWhenEverySenderSaidBye() throws {
        var state = try Self.state(tracks: 3)
        state.tracks[0].senderSSRC = 1
        state.tracks[1].senderSSRC = 2  // track 2 never sent anything: a camera's audio with its microphone off
        #expect(state.goodbye([9], track: 0) == .notTheSender)  // another source's BYE
        #expect(state.goodbye([1], track: 2) == .notTheSender)  // on a track whose sender it is not
        #expect(state.goodbye([1], track: 0) == .trackEnded)
        #expect(state.goodbye([5, 2], track: 1) == .streamEnded)
        #expect(state.goodbye([1], track: 7) == .notTheSender)  // no such track
    }

    @Test func aTrackThatNeverSentDoesNotEndTheStreamByItself() throws {
        var state = try Self.state(tracks: 2)
        #expect(state.goodbye([1], track: 0) == .notTheSender)  // nothing was heard from anyone yet
        state.tracks[0].senderSSRC = 1
        #expect(state.goodbye([1], track: 0) == .streamEnded)
    }
}
