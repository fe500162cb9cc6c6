/// Media clock rates of RTP payload types.
public enum ClockRate {
    /// The clock rate of a static payload type (RFC 3551 tables 4 and 5), or 90 kHz for a dynamic
    /// type (96...127), the rate every video format uses. `nil` for unassigned types.
    public static func assumed(forPayloadType type: UInt8) -> Int? {
        switch type {
        case 0, 3, 4, 5, 7, 8, 9, 12, 13, 15, 18: return 8000
        case 6: return 16000
        case 10, 11: return 44100
        case 16: return 11025
        case 17: return 22050
        case 14, 25, 26, 28, 31, 32, 33, 34: return 90000
        case 96...127: return 90000
        default: return nil
        }
    }
}
