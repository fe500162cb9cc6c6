/// Writes JSON objects with keys in a fixed order, for stable, diffable output.
struct JSONObjectWriter {
    private var fields: [String] = []

    mutating func add(_ key: String, _ value: Int64) { fields.append("\(Self.quote(key)): \(value)") }
    mutating func add(_ key: String, _ value: Int) { add(key, Int64(value)) }
    mutating func add(_ key: String, _ value: UInt64) { fields.append("\(Self.quote(key)): \(value)") }
    mutating func add(_ key: String, _ value: String) { fields.append("\(Self.quote(key)): \(Self.quote(value))") }
    mutating func add(_ key: String, _ value: Double, decimals: Int) {
        fields.append("\(Self.quote(key)): \(formatFixed(value.isFinite ? value : 0, decimals: decimals))")
    }

    var text: String { "{" + fields.joined(separator: ", ") + "}" }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// `value` with exactly `decimals` digits after the point, rounded half away from zero.
func formatFixed(_ value: Double, decimals: Int) -> String {
    var scale: Double = 1
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e18 else { return String(value) }
    let whole = Int64(scaled)
    let divisor = Int64(scale)
    let sign = value < 0 && whole != 0 ? "-" : ""
    guard decimals > 0 else { return sign + String(whole) }
    let fraction = String(whole % divisor)
    return sign + String(whole / divisor) + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
}
