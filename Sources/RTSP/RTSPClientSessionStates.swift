import RTP
import SDP

extension RTSPClientStateMachine {
    /// Where the session is, each step carrying what the session has learnt by then and nothing it has not: the
    /// offer after DESCRIBE, the tracks and the server's session while SETUP goes on, all of it and the step of
    /// play once every track is set up.
    enum State: Sendable {
        case idle
        /// The TEARDOWN of ``Configuration/staleSession`` is under way.
        case clearingStale
        case options
        case describing
        /// Stepwise: DESCRIBE was answered; ``RTSPClientStateMachine/setup(tracks:now:)`` is awaited.
        case described(Offer)
        /// SETUP of `setUp.tracks[index]` is under way.
        case settingUp(SetUp, index: Int)
        /// Every track is set up and the server's session known.
        case established(Established)
        /// TEARDOWN is under way, from what the session had reached.
        case tearingDown(Reached)
        /// Over (torn down, failed or redirected); what it had reached stays readable (a reconnection tears the
        /// server's session down on the next connection).
        case done(Reached)

        /// What the session has learnt in this state.
        var reached: Reached {
            switch self {
            case .idle, .clearingStale, .options, .describing: .nothing
            case .described(let offer): .offered(offer)
            case .settingUp(let setUp, _): .settingUp(setUp)
            case .established(let established): .established(established)
            case .tearingDown(let reached), .done(let reached): reached
            }
        }

        var isIdle: Bool { if case .idle = self { true } else { false } }
        var isDone: Bool { if case .done = self { true } else { false } }
        var isClearingStale: Bool { if case .clearingStale = self { true } else { false } }

        /// When the next keepalive is due, in the steps that send them (set up, playing, paused).
        var keepaliveDue: ArrivalTime? {
            guard case .established(let established) = self else { return nil }
            switch established.step {
            case .ready, .playing, .paused: return established.keepalive
            case .joiningMulticast, .starting, .pausing, .resuming, .seeking: return nil
            }
        }
    }

    /// What DESCRIBE offered: the session description and its tracks of the kinds asked for, in a codec this
    /// library takes.
    struct Offer: Sendable {
        let description: SessionDescription
        var tracks: [Track]
    }

    /// A session as far as SETUP has taken it.
    struct SetUp: Sendable {
        let description: SessionDescription
        /// The tracks chosen, each with the transport the server agreed on once its SETUP is answered.
        var tracks: [Track]
        /// The server's session, from the first SETUP answer.
        var session: SessionHeader?
        /// Audio tracks the server refused, with its status.
        var refused: [(track: Track, status: Int)] = []
        /// Tracks chosen beyond the UDP port pairs bound.
        var withoutPorts: [Track] = []
    }

    /// A session whose tracks are all set up, and where it is in playing them.
    struct Established: Sendable {
        let description: SessionDescription
        var tracks: [Track]
        let session: SessionHeader
        let refused: [(track: Track, status: Int)]
        let withoutPorts: [Track]
        var step: Step
        /// When the next keepalive is due; it is sent in the steps ``State/keepaliveDue`` names.
        var keepalive: ArrivalTime
        /// The `Range` and `Scale` of the latest PLAY answer, as the server gave them.
        var playedRange: String?
        var playedScale: Double?

        init(_ setUp: SetUp, session: SessionHeader, keepalive: ArrivalTime) {
            description = setUp.description
            tracks = setUp.tracks
            self.session = session
            refused = setUp.refused
            withoutPorts = setUp.withoutPorts
            step = .ready
            self.keepalive = keepalive
        }
    }

    /// Where an established session is in playing.
    enum Step: Sendable, Equatable {
        /// Stepwise: PLAY waits for the caller (keepalives go on).
        case ready
        /// Multicast: waiting for the groups to be joined before PLAY.
        case joiningMulticast
        /// The first PLAY is under way.
        case starting
        case playing
        case pausing
        case paused
        case resuming
        /// A PLAY with a new position is under way (sent while playing or paused).
        case seeking
    }

    /// How far a session got, for what is read of it at its end.
    enum Reached: Sendable {
        case nothing
        case offered(Offer)
        case settingUp(SetUp)
        case established(Established)

        var description: SessionDescription? {
            switch self {
            case .nothing: nil
            case .offered(let offer): offer.description
            case .settingUp(let setUp): setUp.description
            case .established(let established): established.description
            }
        }

        var tracks: [Track] {
            switch self {
            case .nothing: []
            case .offered(let offer): offer.tracks
            case .settingUp(let setUp): setUp.tracks
            case .established(let established): established.tracks
            }
        }

        var session: SessionHeader? {
            switch self {
            case .nothing, .offered: nil
            case .settingUp(let setUp): setUp.session
            case .established(let established): established.session
            }
        }
    }
}
