import ServiceLifecycle

extension RTSPServer: Service {
    /// Serves until graceful shutdown or cancellation (a swift-service-lifecycle `Service`): starts listening unless
    /// it already does, and at the end says goodbye before it stops: every mounted source is finished (each viewer
    /// gets its tracks' RTCP BYE), its viewers are given up to ``Configuration/shutdownGrace`` to tear their sessions
    /// down, then the server stops.
    ///
    /// In a `ServiceGroup`, put the server before the relays that feed it: services shut down in reverse order, so
    /// the relays end (and finish their sources) first.
    public func run() async throws {
        if port == nil { try await start() }
        try? await gracefulShutdown()
        for source in mounts.withLock({ Array($0.values) }) { source.finish(lingering: .zero) }
        let deadline = ContinuousClock.now + configuration.shutdownGrace
        while sessionCount > 0, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        await stop()
    }
}
