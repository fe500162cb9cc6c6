import Testing

@_spi(SansIO) @testable import RTPTransport

/// The connection budget both servers count with: in all, per address, and a closed connection's place given back.
@Suite struct ConnectionBudgetTests {
    @Test func aFullListenerAndAFullAddressAreRefusedUntilAConnectionCloses() {
        let budget = ConnectionBudget(maxConnections: 3, maxPerAddress: 2)
        #expect(budget.admit(from: "10.0.0.1") == nil)
        #expect(budget.admit(from: "10.0.0.1") == nil)
        #expect(budget.admit(from: "10.0.0.1") == .addressFull)
        #expect(budget.admit(from: "10.0.0.2") == nil)
        #expect(budget.admit(from: "10.0.0.3") == .full)
        budget.release(from: "10.0.0.1")
        #expect(budget.admit(from: "10.0.0.3") == nil)
        // A refusal counted nothing: the address that was full is full still, and the listener too.
        #expect(budget.admit(from: "10.0.0.1") == .full)
    }

    @Test func withoutAddressesOnlyTheTotalCounts() {
        let budget = ConnectionBudget(maxConnections: 2)
        #expect(budget.admit() == nil && budget.admit() == nil)
        #expect(budget.admit() == .full)
        budget.release()
        #expect(budget.admit() == nil)
    }
}
