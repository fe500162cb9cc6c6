import CoreMetrics

/// Where what consumers make of a source's units is counted (a decoder's pictures and failures): the source's
/// metrics factory and each track's dimensions (a session's: `session`, `track`).
package struct UnitCounting: Sendable {
    package let factory: any MetricsFactory
    package let dimensions: @Sendable (_ track: Int) -> [(String, String)]

    package init(factory: any MetricsFactory, dimensions: @escaping @Sendable (_ track: Int) -> [(String, String)]) {
        self.factory = factory
        self.dimensions = dimensions
    }
}

/// A source of units whose consumers' work is counted (an RTSP session with metrics).
package protocol CountedUnits {
    var counting: UnitCounting? { get }
}
