import RTP

/// The latest complete keyframe of a video stream, with the parameter sets known up to it: what a snapshot decodes,
/// kept as the stream's units pass. It holds one access unit whatever the stream's length and decodes nothing; a
/// snapshot (FFmpegDecoding's `JPEGSnapshot`) costs one decode when it is asked for.
///
/// ```swift
/// var latest = LatestKeyframe(parameterSets: track.format.videoFormat?.parameterSets)
/// for try await unit in session.accessUnits() {
///     latest.note(unit)
///     if snapshotWanted { try write(JPEGSnapshot.jpeg(of: latest)) }
/// }
/// ```
public struct LatestKeyframe: Sendable {
    /// The latest complete keyframe noted; nil before the first.
    public private(set) var keyframe: AccessUnit?
    /// The parameter sets given and those seen in band, the newest of each id.
    public private(set) var parameterSets: ParameterSets?
    /// Keyframes noted so far.
    public private(set) var keyframes = 0

    /// Starts with the parameter sets a track's SDP gives (nil: only those in band).
    public init(parameterSets: ParameterSets? = nil) {
        self.parameterSets = parameterSets
    }

    /// Notes a unit: the parameter sets in it, and it when it is a complete keyframe (one that lost a packet would
    /// decode to a damaged picture: the one before it is kept instead).
    public mutating func note(_ unit: AccessUnit) {
        if unit.codec != .jpeg {
            if parameterSets?.codec != unit.codec { parameterSets = ParameterSets(codec: unit.codec) }
            for nal in unit.nalUnits where nal.isParameterSet { parameterSets?.update(nal) }
        }
        guard unit.isKeyframe, unit.isComplete else { return }
        keyframe = unit
        keyframes += 1
    }
}
