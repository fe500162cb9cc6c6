import PacketCapture
import RTP

/// A publisher's ICE (WHIP, RFC 9725: we offer, the endpoint answers), sans I/O: the controlling agent of RFC 8445
/// toward the endpoint's candidates. Each candidate gets a check (a Binding request with PRIORITY, ICE-CONTROLLING
/// and USE-CANDIDATE: aggressive nomination, which RFC 8445 section 8.1.1 leaves to the controlling agent and every
/// WebRTC stack takes), retransmitted as RFC 8489 section 6.2.1 says (from ``initialRetransmission``, doubling, at
/// most ``maxAttempts`` sends) until one is answered with the endpoint's MESSAGE-INTEGRITY: that address is where
/// media goes, and nothing else is sent anywhere but checks. The endpoint's own checks of us (a full agent checks
/// too) are answered. Consent (RFC 7675): a Binding request every ``consentInterval``; no answer for
/// ``consentTimeout`` and the agent fails.
///
/// ```swift
/// var agent = ICEControllingAgent(local: .random(), remote: answer.credentials, candidates: answer.candidates)
/// send(agent.start(now: .now()))
/// // each datagram from the endpoint that looks like STUN: send(agent.receive(datagram, from: address, now: .now()))
/// // at agent.nextWakeUp: send(agent.wake(now: .now()))
/// ```
@_spi(SansIO) public struct ICEControllingAgent: Sendable {
    /// What the owner does.
    public enum Action: Sendable, Hashable {
        /// Send these bytes to this address (a check, or the answer to the endpoint's).
        case send([UInt8], to: SocketAddress)
        /// A check of this address was answered: media goes there.
        case selected(SocketAddress)
        /// ICE failed (why): no candidate answered, or consent ran out. Stop sending.
        case failed(String)
    }

    /// A check sent and not yet answered.
    struct Transaction: Sendable {
        var address: SocketAddress
        var request: [UInt8]
        var attempts: Int
        var interval: Duration
        var due: ArrivalTime
    }

    public let local: ICELiteAgent.Credentials
    public let remote: ICELiteAgent.Credentials
    /// The endpoint's candidates (at most ``maxCandidates`` of them are checked).
    public let candidates: [SocketAddress]
    /// The first retransmission's wait (RFC 8489's RTO; it doubles with each).
    public var initialRetransmission: Duration = .milliseconds(100)
    /// Sends of one check before it is given up (RFC 8489's Rc).
    public var maxAttempts = 7
    /// How often consent is asked once media flows, and how long without an answer ends it (RFC 7675).
    public var consentInterval: Duration = .seconds(5)
    public var consentTimeout: Duration = .seconds(30)
    /// The most candidates checked: an answer listing more is read up to this many.
    public static let maxCandidates = 8
    /// Where media goes: the first candidate whose check was answered.
    public private(set) var selected: SocketAddress?
    public private(set) var isFailed = false

    private let tieBreaker: UInt64
    private var transactions: [[UInt8]: Transaction] = [:]
    private var lastAnswer: ArrivalTime?
    private var nextConsent: ArrivalTime?

    public init(
        local: ICELiteAgent.Credentials, remote: ICELiteAgent.Credentials, candidates: [SocketAddress],
        tieBreaker: UInt64 = .random(in: 0...UInt64.max)
    ) {
        self.local = local
        self.remote = remote
        self.candidates = Array(candidates.prefix(Self.maxCandidates))
        self.tieBreaker = tieBreaker
    }

    /// A host candidate's priority (RFC 8445 section 5.1.2.1: type preference 126, local preference 65535,
    /// component 1), what our checks say ours is.
    public static let hostPriority: UInt32 = 2_130_706_431

    /// Checks every candidate.
    public mutating func start(now: ArrivalTime) -> [Action] {
        guard !candidates.isEmpty else {
            isFailed = true
            return [.failed("the answer names no candidate to reach the endpoint at")]
        }
        return candidates.map { check($0, nominating: true, now: now) }
    }

    private mutating func check(_ address: SocketAddress, nominating: Bool, now: ArrivalTime) -> Action {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var attributes: [STUNAttribute] = [
            .username("\(remote.usernameFragment):\(local.usernameFragment)"),
            STUNAttribute(type: STUNAttribute.priority, value: Self.bigEndian(UInt64(Self.hostPriority), bytes: 4)),
            STUNAttribute(type: STUNAttribute.iceControlling, value: Self.bigEndian(tieBreaker, bytes: 8)),
        ]
        if nominating { attributes.append(STUNAttribute(type: STUNAttribute.useCandidate, value: [])) }
        let request = STUNMessage(.request, transactionID: id, attributes: attributes)
            .serialized(integrityKey: Array(remote.password.utf8))
        transactions[id] = Transaction(
            address: address, request: request, attempts: 1, interval: initialRetransmission,
            due: now + initialRetransmission)
        return .send(request, to: address)
    }

    static func bigEndian(_ value: UInt64, bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// A datagram from `address` that looked like STUN.
    public mutating func receive(_ datagram: some Collection<UInt8>, from address: SocketAddress, now: ArrivalTime)
        -> [Action]
    {
        guard !isFailed, let message = try? STUNMessage(parsing: datagram), message.method == STUNMessage.binding
        else { return [] }
        switch message.messageClass {
        case .request:
            // The endpoint's check of us: answered only from a candidate it named, with its right integrity.
            let key = Array(local.password.utf8)
            guard candidates.contains(address),
                message.username == "\(local.usernameFragment):\(remote.usernameFragment)",
                message.integrityIsValid(key: key)
            else { return [] }
            let answer = STUNMessage(
                .successResponse, transactionID: message.transactionID,
                attributes: [.xorMappedAddress(address, transactionID: message.transactionID)])
            return [.send(answer.serialized(integrityKey: key), to: address)]
        case .successResponse:
            guard let transaction = transactions[message.transactionID], transaction.address == address,
                message.integrityIsValid(key: Array(remote.password.utf8))
            else { return [] }
            transactions[message.transactionID] = nil
            lastAnswer = now
            guard selected == nil else { return [] }
            selected = address
            nextConsent = now + consentInterval
            transactions = transactions.filter { $0.value.address == address }
            return [.selected(address)]
        case .errorResponse:
            // A refusal (a role conflict, a wrong credential): that check is over.
            guard let transaction = transactions[message.transactionID], transaction.address == address else {
                return []
            }
            transactions[message.transactionID] = nil
            return failedIfNothingLeft()
        default:
            return []
        }
    }

    /// When ``wake(now:)`` next has something to do: a retransmission, a consent check or its deadline.
    public var nextWakeUp: ArrivalTime? {
        guard !isFailed else { return nil }
        let deadline = selected == nil ? nil : lastAnswer.map { $0 + consentTimeout }
        return (transactions.values.map(\.due) + [nextConsent, deadline].compactMap { $0 }).min()
    }

    /// Runs what is due: checks sent again (the same request: RFC 8489's retransmission), given up, consent.
    public mutating func wake(now: ArrivalTime) -> [Action] {
        guard !isFailed else { return [] }
        var actions: [Action] = []
        for (id, transaction) in transactions.sorted(by: { $0.value.due < $1.value.due }) where transaction.due <= now {
            guard transaction.attempts < maxAttempts else {
                transactions[id] = nil
                continue
            }
            var next = transaction
            next.attempts += 1
            next.interval = next.interval * 2
            next.due = now + next.interval
            transactions[id] = next
            actions.append(.send(transaction.request, to: transaction.address))
        }
        guard let selected else { return actions + failedIfNothingLeft() }
        if let last = lastAnswer, now - last >= consentTimeout {
            isFailed = true
            return actions + [.failed("the endpoint stopped answering (ICE consent expired)")]
        }
        if let due = nextConsent, now >= due {
            actions.append(check(selected, nominating: false, now: now))
            nextConsent = now + consentInterval
        }
        return actions
    }

    private mutating func failedIfNothingLeft() -> [Action] {
        guard selected == nil, transactions.isEmpty, !isFailed else { return [] }
        isFailed = true
        return [.failed("no check of the endpoint's \(candidates.count) candidate(s) was answered")]
    }
}
