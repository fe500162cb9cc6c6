import RTP
import CH26x

/// Collects NAL units into access units, deciding where one picture ends and the next begins.
///
/// An access unit ends at the RTP marker bit (once it holds a picture), at a timestamp change (once it
/// holds a picture), and before
/// a NAL unit that can only start a new one when the current already holds a picture: an access unit
/// delimiter, a parameter set, a prefix SEI, or a slice that is the first of its picture
/// (first_mb_in_slice == 0 in H.264, first_slice_segment_in_pic_flag in H.265), for cameras that never
/// set the marker.
@usableFromInline
struct AccessUnitAssembler: Sendable {
    let codec: VideoCodec
    private(set) var parameterSets: ParameterSets
    /// NAL units larger than this are dropped as damaged.
    let maxNALSize: Int
    /// Access units larger than this are cut: the rest of the picture is dropped and counted as loss.
    let maxAccessUnitSize: Int
    /// After an incomplete access unit, drop access units until a complete keyframe.
    let waitForKeyframeAfterLoss: Bool
    private var waitingForKeyframe = false
    /// Access units dropped while waiting for a keyframe.
    private(set) var skippedAccessUnits = 0

    /// The access unit as Annex B: each NAL unit preceded by a 4-byte start code, so that writing it out
    /// as an elementary stream needs no second copy. `ranges` leave the start codes out.
    private var buffer: [UInt8] = []
    /// Units completed and not yet taken (``nextCompleted()``), oldest first: almost always none or one.
    /// Each is moved out when taken, so that the assembler keeps no reference to a unit it handed on.
    @usableFromInline var completed: [AccessUnit] = []
    private var ranges: [Range<Int>] = []
    /// The ranges array of the unit completed before: the two take turns (``startNextRanges()``).
    private var spareRanges: [Range<Int>] = []
    private static let startCode: [UInt8] = [0, 0, 0, 1]
    private var nalStart: Int?
    /// Whether the NAL unit being assembled holds a start code (00 00 01), a camera quirk: the bytes are
    /// scanned as they are copied in (`append(_:)`), not again at its end.
    private var nalHoldsStartCode = false
    private(set) var timestamp: UInt64?
    /// The SSRC of the packets the current access unit is made from.
    var ssrc: UInt32 = 0
    private var hasPicture = false
    private var keyframe = false
    private var parameterSetsChanged = false
    private(set) var lostPackets = 0
    /// NAL units dropped for size.
    private(set) var oversizedNALs = 0
    /// NAL units dropped because the stream ended before the picture they came before (an AUD, parameter
    /// sets or SEI with nothing lost and no slice after them).
    private(set) var unitsWithoutPictureNALs = 0
    /// Where the current access unit may end (an index into `ranges`), pending the next slice.
    private var boundary: Int?
    private var changedAfterBoundary = false
    /// Parameter sets or SEI found between the slices of one picture (a quirk, tolerated).
    private(set) var parametersInsidePicture = 0
    /// The largest access units (bytes) of this window of ``sizeWindow`` units and of the one before: what
    /// a new buffer is sized for (see ``startNextBuffer()``).
    /// The buffer still holds the unit last completed (``finish()``), to be emptied before the next.
    private var bufferHoldsCompletedUnit = false
    private var largestInWindow = 0
    private var largestInPreviousWindow = 0
    private var unitsInWindow = 0
    /// Units per window: at 30 fps, some 4 s, longer than most cameras' keyframe interval, so that the
    /// estimate holds the keyframe's size.
    static let sizeWindow = 128
    /// The least a new buffer is sized for.
    static let minimumBufferCapacity = 64 * 1024

    init(
        codec: VideoCodec, parameterSets: ParameterSets, maxNALSize: Int, maxAccessUnitSize: Int,
        waitForKeyframeAfterLoss: Bool = false
    ) {
        self.codec = codec
        self.parameterSets = parameterSets
        self.maxNALSize = maxNALSize
        self.maxAccessUnitSize = maxAccessUnitSize
        self.waitForKeyframeAfterLoss = waitForKeyframeAfterLoss
        buffer.reserveCapacity(256 * 1024)
        ranges.reserveCapacity(64)
        spareRanges.reserveCapacity(64)
        completed.reserveCapacity(4)
    }

    /// The oldest completed access unit not yet taken.
    @usableFromInline
    mutating func nextCompleted() -> AccessUnit? {
        completed.takeOldest()
    }

    var isEmpty: Bool { ranges.isEmpty && nalStart == nil }
    var isInNAL: Bool { nalStart != nil }
    var holdsPicture: Bool { hasPicture }

    mutating func addLoss(_ count: Int) { lostPackets += count }

    /// Sets the timestamp of what follows, ending the current access unit if it had another. One that holds
    /// no picture and lost nothing goes on instead into the access unit of the new timestamp: Reolink
    /// RLC-822A stamps the AUD, SPS, PPS and SEI before a picture with the previous picture's time, and an
    /// access unit of those alone would be one more than there are pictures, and undecodable. (With loss,
    /// the picture may be what was lost: that access unit ends, incomplete, as before.)
    mutating func setTimestamp(_ value: UInt64) {
        if let current = timestamp, current != value, !ranges.isEmpty, hasPicture || lostPackets > 0 {
            finish()
        }
        timestamp = value
    }

    mutating func beginNAL() {
        if nalStart != nil { abortNAL() }
        if bufferHoldsCompletedUnit {
            startNextBuffer()
            bufferHoldsCompletedUnit = false
        }
        buffer.append(contentsOf: Self.startCode)
        nalStart = buffer.count
        nalHoldsStartCode = false
    }

    /// Removes the NAL unit that starts at `start`, with its start code.
    private mutating func drop(from start: Int) {
        buffer.removeSubrange((start - Self.startCode.count)...)
    }

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        // Through a buffer pointer: appending the slice itself retained and released its storage per packet.
        bytes.withUnsafeBufferPointer { append($0) }
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = nalStart else { return }
        guard buffer.count - start + bytes.count <= maxNALSize, buffer.count + bytes.count <= maxAccessUnitSize else {
            oversizedNALs += 1
            lostPackets += 1
            abortNAL()
            return
        }
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        let appendedAt = buffer.count
        var found = bytes.count
        // Copied and scanned for a start code in one pass (CH26x), straight into the buffer's free capacity.
        buffer.append(addingCapacity: bytes.count) { free in
            free.withUnsafeMutableBufferPointer { space, initialized in
                guard let destination = space.baseAddress else { return }
                found = ch26x_copy_find_start_code(destination + initialized, source, bytes.count)
                initialized += bytes.count
            }
        }
        if found < bytes.count { nalHoldsStartCode = true }
        noteStartCode(across: appendedAt, nalStart: start)
    }

    mutating func append(_ byte: UInt8) {
        guard let start = nalStart else { return }
        buffer.append(byte)
        noteStartCode(across: buffer.count - 1, nalStart: start)
    }

    /// Notes a start code whose first one or two bytes were in the NAL unit before `appendedAt` and the
    /// rest after it (one that a scan of the appended bytes alone does not see).
    private mutating func noteStartCode(across appendedAt: Int, nalStart start: Int) {
        // Such a start code has a zero just before `appendedAt`: for almost every append, one test.
        guard !nalHoldsStartCode, appendedAt > start, buffer[appendedAt - 1] == 0 else { return }
        var position = max(start, appendedAt - 2)
        while position < appendedAt && position + 2 < buffer.count {
            if buffer[position] == 0 && buffer[position + 1] == 0 && buffer[position + 2] == 1 {
                nalHoldsStartCode = true
                return
            }
            position += 1
        }
    }

    /// Drops the NAL unit being assembled (a fragment was lost): nothing spliced is ever completed.
    mutating func abortNAL() {
        guard let start = nalStart else { return }
        drop(from: start)
        nalStart = nil
    }

    /// Adds a whole NAL unit.
    mutating func addNAL(_ bytes: ArraySlice<UInt8>) {
        beginNAL()
        append(bytes)
        endNAL()
    }

    /// Closes the NAL unit being assembled and files it, splitting it where a camera left start codes in it.
    mutating func endNAL() {
        guard let start = nalStart else { return }
        nalStart = nil
        let nal = buffer[start...]
        guard nal.count > (codec == .h264 ? 1 : 2) else {
            drop(from: start)
            return
        }
        // Quirk: some cameras put Annex B streams (start codes included) in RTP payloads.
        if nalHoldsStartCode {
            let parts = AnnexB.split(nal)
            let copy = parts.map { Array(buffer[$0]) }
            drop(from: start)
            for part in copy {
                buffer.append(contentsOf: Self.startCode)
                nalStart = buffer.count
                buffer.append(contentsOf: part)
                file(from: buffer.count - part.count)
            }
            nalStart = nil
            return
        }
        file(from: start)
    }

    /// Files the NAL unit at `start..<buffer.endIndex`. When the access unit already holds a picture, a NAL
    /// unit that may start the next one (AUD, parameter set, SEI) only marks a candidate boundary: the next
    /// slice decides. If it is the first slice of a picture, the access unit ends at the candidate; if it
    /// continues the picture, the candidate is dropped. (Quirk: GStreamer's rtph264pay with
    /// config-interval=-1 repeats SPS and PPS before every IDR slice, between slices of one picture.)
    private mutating func file(from start: Int) {
        nalStart = nil
        let nal = NALUnit(codec: codec, bytes: buffer[start...])
        guard nal.bytes.first.map({ $0 & 0x80 == 0 }) == true else {
            drop(from: start)  // forbidden_zero_bit set: not a NAL unit
            return
        }
        let index = ranges.count
        ranges.append(start..<buffer.count)
        let changed = nal.isParameterSet && parameterSets.update(nal)
        if hasPicture && startsAccessUnit(nal) {
            if nal.isVCL {
                split(at: boundary ?? index)
            } else if boundary == nil {
                boundary = index
            }
        } else if nal.isVCL && boundary != nil {
            boundary = nil
            parametersInsidePicture += 1
        }
        if changed {
            if boundary == nil { parameterSetsChanged = true } else { changedAfterBoundary = true }
        }
        if nal.isVCL {
            hasPicture = true
            if nal.isKeyframe { keyframe = true }
        }
    }

    /// Completes the NAL units before `index` as an access unit and keeps the rest as the start of the next.
    private mutating func split(at index: Int) {
        let kept = ranges[index...].map { $0 }
        let carriedChange = changedAfterBoundary
        ranges.removeSubrange(index...)
        let cut = kept.first.map { $0.lowerBound - Self.startCode.count } ?? buffer.count
        completeCurrent()
        // The unit just completed holds the buffer until it is taken: the rest goes into a new one (sized
        // for a whole unit, so that it does not grow by steps). Rare: only for cameras that neither set the
        // marker nor change the timestamp between pictures.
        var next: [UInt8] = []
        next.reserveCapacity(neededBufferCapacity)
        next.append(contentsOf: buffer[cut...])
        buffer = next
        startNextRanges()
        for range in kept { ranges.append((range.lowerBound - cut)..<(range.upperBound - cut)) }
        resetFlags()
        parameterSetsChanged = carriedChange
    }

    /// Whether this NAL unit can only be the first of a new access unit (H.264 7.4.1.2.3, H.265 7.4.2.4.4).
    private func startsAccessUnit(_ nal: NALUnit) -> Bool {
        let type = nal.type
        switch codec {
        case .h264:
            switch type {
            case 6, 7, 8, 9, 14, 15, 16, 17, 18: return true
            case 1, 2, 5:
                // first_mb_in_slice is ue(v): it is 0 exactly when its first bit is 1.
                return nal.bytes.count > 1 && nal.bytes[nal.bytes.startIndex + 1] & 0x80 != 0
            default: return false
            }
        case .h265:
            switch type {
            case 32, 33, 34, 35, 39, 41, 42, 43, 44, 48...55: return true
            case 0...31:
                return nal.bytes.count > 2 && nal.bytes[nal.bytes.startIndex + 2] & 0x80 != 0  // first_slice_segment_in_pic_flag
            default: return false
            }
        case .jpeg: return false  // no NAL units: an assembler is made for H.264 and H.265 only
        }
    }

    /// Completes the access unit (if it holds anything) and starts the next with an empty buffer.
    mutating func finish() {
        if nalStart != nil { abortNAL() }
        completeCurrent()
        // Emptied when the next unit's first NAL unit comes: by then a consumer that took the unit and let
        // go of it (as most do before handing in the next packet) has left the storage to be reused.
        bufferHoldsCompletedUnit = true
        startNextRanges()
        resetFlags()
    }

    /// Empties `ranges` for the next unit. The unit just completed shares its storage until it is taken
    /// and let go of, so it is not emptied in place (that would allocate a new array per unit): the array of
    /// the unit before, let go of by now, takes its turn.
    private mutating func startNextRanges() {
        swap(&ranges, &spareRanges)
        ranges.removeAll(keepingCapacity: true)
    }

    /// The capacity the next access unit's buffer starts with: the largest unit of the last two windows
    /// and an eighth more (so that most keyframes fit without growing, which would copy them again).
    var neededBufferCapacity: Int {
        let largest = max(largestInWindow, largestInPreviousWindow)
        return max(Self.minimumBufferCapacity, largest + largest / 8)
    }

    /// Empties the buffer for the next access unit, reusing its storage when the completed unit was let go
    /// of (nothing allocated). When the unit is still held (an iterator hands it on later, a consumer
    /// keeps it), emptying the shared buffer allocates a new one of the same capacity, which the allocator
    /// rounds up, a page at a time for a buffer this large: capacity crept up by 4 KiB per unit, and each
    /// held unit kept all of it (a session's memory grew for as long as it played). A buffer that has grown
    /// past twice what the units need starts again at that size instead.
    private mutating func startNextBuffer() {
        let needed = neededBufferCapacity
        if buffer.capacity > 2 * needed {
            buffer = []
            buffer.reserveCapacity(needed)
        } else {
            buffer.removeAll(keepingCapacity: true)
        }
    }

    private mutating func noteSize(_ size: Int) {
        largestInWindow = max(largestInWindow, size)
        unitsInWindow += 1
        if unitsInWindow == Self.sizeWindow {
            largestInPreviousWindow = largestInWindow
            largestInWindow = 0
            unitsInWindow = 0
        }
    }

    private mutating func completeCurrent() {
        guard !ranges.isEmpty, let timestamp else { return }
        // Only the stream's end completes a unit that holds no picture and lost nothing (a new timestamp or
        // a marker waits for the picture): what came before a picture that never came is no access unit,
        // and a decoder or a recording given one fails on it ("missing picture in access unit").
        guard hasPicture || lostPackets > 0 else {
            unitsWithoutPictureNALs += ranges.count
            return
        }
        noteSize(ranges.last.map(\.upperBound) ?? 0)
        if waitForKeyframeAfterLoss && lostPackets > 0 { waitingForKeyframe = true }
        if waitingForKeyframe && keyframe && lostPackets == 0 { waitingForKeyframe = false }
        if waitingForKeyframe {
            skippedAccessUnits += 1
        } else {
            completed.append(
                AccessUnit(
                    codec: codec, timestamp: timestamp,
                    nalUnits: AccessUnit.NALUnits(codec: codec, storage: buffer, ranges: ranges, startCoded: true),
                    isKeyframe: keyframe, parameterSetsChanged: parameterSetsChanged, lostPackets: lostPackets,
                    ssrc: ssrc))
        }
        lostPackets = 0
    }

    private mutating func resetFlags() {
        hasPicture = false
        keyframe = false
        parameterSetsChanged = false
        changedAfterBoundary = false
        boundary = nil
    }
}
