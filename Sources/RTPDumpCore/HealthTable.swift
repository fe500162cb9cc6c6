import RTP

/// `rtpdump health`'s table: one row per camera, its figures over the last interval.
package struct HealthTable {
    package struct Row {
        /// The camera as it may be printed (its URL without credentials).
        package var camera: String
        /// `connecting`, `up`, `down` or `ended`.
        package var state: String
        package var framesPerSecond: Double?
        /// Lost over expected in the interval, 0 to 1.
        package var loss: Double?
        package var kilobitsPerSecond: Double?
        /// Seconds since the last keyframe arrived.
        package var keyframeAge: Double?
        package var reconnects: Int

        package init(
            camera: String, state: String, framesPerSecond: Double? = nil, loss: Double? = nil,
            kilobitsPerSecond: Double? = nil, keyframeAge: Double? = nil, reconnects: Int = 0
        ) {
            self.camera = camera
            self.state = state
            self.framesPerSecond = framesPerSecond
            self.loss = loss
            self.kilobitsPerSecond = kilobitsPerSecond
            self.keyframeAge = keyframeAge
            self.reconnects = reconnects
        }
    }

    package static let header = ["CAMERA", "STATE", "FPS", "LOSS", "KBIT/S", "KEYFRAME", "RECONNECTS"]

    /// The rows as aligned columns, a header first; `-` where a figure is not known (nothing arrived yet).
    package static func render(_ rows: [Row]) -> String {
        let cells =
            [header]
            + rows.map { row in
                [
                    row.camera.escapingControlCharacters, row.state, decimal(row.framesPerSecond, places: 1),
                    row.loss.map { decimal($0 * 100, places: 1) + " %" } ?? "-",
                    decimal(row.kilobitsPerSecond, places: 0),
                    row.keyframeAge.map { decimal($0, places: 1) + " s ago" } ?? "-", String(row.reconnects),
                ]
            }
        let widths = header.indices.map { column in cells.map { $0[column].count }.max() ?? 0 }
        return cells.map { line in
            line.enumerated().map { column, cell in
                column == line.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count + 2)
            }.joined()
        }.joined(separator: "\n") + "\n"
    }

    /// `value` with `places` decimals (0 or 1), without Foundation's formatting.
    static func decimal(_ value: Double?, places: Int) -> String {
        guard let value, value.isFinite else { return "-" }
        guard places > 0 else { return String(Int(value.rounded())) }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}
