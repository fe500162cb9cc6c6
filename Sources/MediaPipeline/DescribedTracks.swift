import SDP

/// A source whose tracks' formats are known before their first unit (an RTSP session, from its SDP): what
/// a decoder is made and configured from (a camera's parameter sets are often in its SDP alone).
public protocol DescribedTracks {
    /// The format of `track`, by index in the source; nil for a track it does not have.
    func format(track: Int) -> MediaFormat?
}
