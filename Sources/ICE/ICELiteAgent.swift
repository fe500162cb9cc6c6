import PacketCapture
import RTP

/// One viewer's ICE as an ICE-lite agent (RFC 8445 section 2.5), sans I/O: the viewer (a full agent, the
/// controlling one) sends Binding requests to our host candidates; each that names our username and carries a
/// right MESSAGE-INTEGRITY for our password is answered (XOR-MAPPED-ADDRESS: where it came from) and makes its
/// source address checked. The address the viewer nominates (USE-CANDIDATE), else the first checked, is where
/// media goes; nothing is sent anywhere before a check from there succeeded.
///
/// Consent freshness (RFC 7675): a viewer keeps checking while it wants media (Chromium every 5 s or so); an
/// address that has not been checked for ``consentTimeout`` loses consent, and the agent says so at
/// ``nextWakeUp`` (``expire(now:)``): stop sending there.
///
/// ```swift
/// var agent = ICELiteAgent(local: .random(), remoteUsername: offer.iceUsernameFragment)
/// for action in agent.receive(datagram, from: address, now: .now()) {
///     switch action {
///     case .send(let bytes, let to): socket.send(bytes, to: to)
///     case .selected(let address): startMedia(to: address)
///     case .consentLost(let address): stopMedia(to: address)
///     }
/// }
/// ```
@_spi(SansIO) public struct ICELiteAgent: Sendable {
    /// An agent's username fragment and password (RFC 8445 section 5.3: `a=ice-ufrag`, `a=ice-pwd`).
    public struct Credentials: Sendable, Hashable {
        public var usernameFragment: String
        public var password: String

        public init(usernameFragment: String, password: String) {
            self.usernameFragment = usernameFragment
            self.password = password
        }

        /// Random credentials: 8 characters of fragment (48 bits) and 24 of password (144 bits), from ICE's
        /// alphabet, beyond RFC 8445's minimums (24 and 128 bits).
        public static func random() -> Credentials {
            var generator = SystemRandomNumberGenerator()
            return random(using: &generator)
        }

        public static func random(using generator: inout some RandomNumberGenerator) -> Credentials {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
            func text(_ count: Int) -> String {
                String((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
            }
            return Credentials(usernameFragment: text(8), password: text(24))
        }
    }

    /// What the owner does.
    public enum Action: Sendable, Hashable {
        /// Send these bytes to this address (a check's answer; only ever to where the check came from).
        case send([UInt8], to: SocketAddress)
        /// Media goes to this address from now on (nominated, or the first checked).
        case selected(SocketAddress)
        /// This address has not been checked for the consent timeout: send it nothing more.
        case consentLost(SocketAddress)
    }

    /// What it counted of what it did not answer.
    public struct Counts: Sendable, Hashable {
        /// Datagrams that were not STUN this reads.
        public var malformed = 0
        /// Requests for another username (another viewer's, or a stray).
        public var otherUsername = 0
        /// Requests whose MESSAGE-INTEGRITY or FINGERPRINT was wrong.
        public var failedIntegrity = 0
        /// Requests from a new address past ``maxAddresses``.
        public var tooManyAddresses = 0
    }

    public let local: Credentials
    /// The viewer's username fragment (its offer's `a=ice-ufrag`).
    public let remoteUsernameFragment: String
    /// How long an address keeps consent without a check (RFC 7675 section 5.1: 30 s).
    public var consentTimeout: Duration = .seconds(30)
    /// The most addresses tracked for one viewer (its candidates that reach us).
    public var maxAddresses = 8
    /// The SOFTWARE attribute of the answers (nil: none).
    public var software: String? = nil
    public private(set) var counts = Counts()
    /// Where media goes now; nil before any check succeeded or after its consent was lost.
    public private(set) var selected: SocketAddress?
    /// Each checked address and when its last check came.
    private var checked: [SocketAddress: ArrivalTime] = [:]
    private var nominated = false

    public init(local: Credentials, remoteUsernameFragment: String) {
        self.local = local
        self.remoteUsernameFragment = remoteUsernameFragment
    }

    /// The username a viewer's checks carry: ours, a colon, its own (RFC 8445 section 7.2.2).
    public var expectedUsername: String { "\(local.usernameFragment):\(remoteUsernameFragment)" }

    /// Whether a check from `address` succeeded and its consent holds: the only addresses anything may be sent to.
    public func isChecked(_ address: SocketAddress) -> Bool { checked[address] != nil }

    /// A datagram from `address` that looked like STUN (``STUNMessage/looksLikeSTUN(_:)``).
    public mutating func receive(_ datagram: some Collection<UInt8>, from address: SocketAddress, now: ArrivalTime)
        -> [Action]
    {
        guard let request = try? STUNMessage(parsing: datagram), request.isBindingRequest else {
            counts.malformed += 1
            return []
        }
        guard request.username == expectedUsername else {
            counts.otherUsername += 1
            return []
        }
        guard request.fingerprintIsValid || request.value(of: STUNAttribute.fingerprint) == nil,
            request.integrityIsValid(key: Array(local.password.utf8))
        else {
            counts.failedIntegrity += 1
            return []
        }
        let key = Array(local.password.utf8)
        if request.iceControlled != nil {
            // Both controlled: a lite agent cannot take the controlling role, so the peer must (RFC 8445 7.3.1.1).
            let conflict = STUNMessage(
                .errorResponse, transactionID: request.transactionID,
                attributes: [.errorCode(487, reason: "Role Conflict")])
            return [.send(conflict.serialized(integrityKey: key), to: address)]
        }
        guard checked[address] != nil || checked.count < maxAddresses else {
            counts.tooManyAddresses += 1
            return []
        }
        checked[address] = now
        var attributes = [STUNAttribute.xorMappedAddress(address, transactionID: request.transactionID)]
        if let software { attributes.append(.software(software)) }
        let answer = STUNMessage(.successResponse, transactionID: request.transactionID, attributes: attributes)
        var actions: [Action] = [.send(answer.serialized(integrityKey: key), to: address)]
        if request.useCandidate && (selected != address || !nominated) {
            nominated = true
            selected = address
            actions.append(.selected(address))
        } else if selected == nil {
            selected = address
            actions.append(.selected(address))
        }
        return actions
    }

    /// When ``expire(now:)`` next has something to do: the first checked address's consent running out.
    public var nextWakeUp: ArrivalTime? { checked.values.min().map { $0 + consentTimeout } }

    /// Addresses whose consent ran out are forgotten; if media went to one, it stops (a later check selects again).
    public mutating func expire(now: ArrivalTime) -> [Action] {
        let lost = checked.filter { now - $0.value >= consentTimeout }.keys.sorted { $0.description < $1.description }
        for address in lost {
            checked[address] = nil
            if selected == address {
                selected = nil
                nominated = false
            }
        }
        return lost.map { .consentLost($0) }
    }
}
