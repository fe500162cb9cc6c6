import NIOConcurrencyHelpers
import NIOCore
@_spi(SansIO) import RTP
@_spi(SansIO) import RTSP
@_spi(SansIO) import RTPTransport
import SRTP

/// The media side of the driver: packets in (interleaved or UDP), RTCP in and out.
extension SessionDriver {
    /// An interleaved frame from the RTSP connection.
    func interleaved(_ bytes: [UInt8], channel: UInt8) {
        switch phase {
        case .starting: media.holdEarly(channel: channel, bytes: bytes)
        case .playing, .closing:
            // While TEARDOWN is under way, what still arrives is delivered: BYE can overtake the last packets.
            guard let route = media.routes[channel] else {
                logFirst(
                    media.unknownChannelFrames == 0, .info,
                    "an interleaved frame on channel \(channel), which no track was set up on, was dropped")
                return media.unknownChannelFrames += 1
            }
            deliver(bytes, track: route.track, isRTCP: route.carriage.isRTCP(bytes))
        case .closed: return
        }
    }

    /// A datagram on a track's RTP or RTCP socket.
    func datagram(_ buffer: ByteBuffer, track: Int, isRTCP: Bool) {
        let bytes = buffer.withUnsafeReadableBytes { packetBuffers.copy($0) }
        switch phase {
        case .starting:
            // Between connections of a session that reconnects, what arrives is the old session's: dropped.
            guard control != nil else { return }
            media.holdEarly(MediaState.EarlyPacket(bytes: bytes, track: track, isRTCP: isRTCP))
        case .playing, .closing:
            guard track < media.tracks.count else { return }
            deliver(bytes, track: track, isRTCP: isRTCP)
        case .closed: return
        }
    }

    func deliver(_ bytes: [UInt8], track: Int, isRTCP: Bool) {
        let arrival = now
        if let stalled = media.stalledSince {
            media.stalledSince = nil
            tell(.recovered(gap: arrival - stalled))
        }
        media.lastArrival = arrival
        var bytes = bytes
        if let srtp = media.tracks[track].srtp {
            // What fails authentication is counted and goes no further.
            do throws(SRTPError) {
                bytes = isRTCP ? try srtp.unprotectRTCP(bytes) : try srtp.unprotect(bytes)
            } catch {
                logFirst(
                    media.srtpFailures == 0, .warning,
                    "track \(track): an SRTP packet failed authentication (\(error)) and was dropped")
                return media.srtpFailures += 1
            }
        }
        if isRTCP { return receivedRTCP(bytes, track: track, arrival: arrival) }
        // The backchannel carries what the client sends: RTP from the server on it is nobody's to read, and would
        // only fill the consumer's backlog (a talking client reads none).
        guard !media.tracks[track].description.isBackchannel else {
            logFirst(
                media.backchannelPackets == 0, .notice,
                "track \(track): the server sent RTP on the backchannel; it is dropped")
            return media.backchannelPackets += 1
        }
        guard let packet = try? RTPPacket(bytes) else {
            logFirst(
                media.invalidPackets == 0, .notice,
                "track \(track): a packet that is not RTP (\(bytes.count) bytes) was dropped")
            return media.invalidPackets += 1
        }
        if media.seekHeld != nil {
            // A seek is under way: which position this packet is of, its answer will tell.
            guard media.seekHeld?.count ?? 0 < options.packetBufferCapacity else { return media.droppedByConsumer += 1 }
            media.seekHeld?.append((packet, track, arrival))
            return
        }
        route(packet, track: track, arrival: arrival)
    }

    /// A packet of a track, past the seek and source checks, to the consumer.
    private func route(_ packet: RTPPacket, track: Int, arrival: ArrivalTime) {
        if let first = media.tracks[track].seekSequence {
            // Within half the sequence space behind the new start: the old position's.
            guard Int16(bitPattern: packet.sequenceNumber &- first) >= 0 else {
                return media.tracks[track].packetsBeforeSeek += 1
            }
            media.tracks[track].seekSequence = nil
        }
        let staleBefore = media.tracks[track].staleSourcePackets
        let decision = media.tracks[track].source(of: packet, arrival: arrival)
        // Counted here or among held packets dropped when the announced source was first heard: either way
        // the first time the count leaves 0.
        logFirst(
            staleBefore == 0 && media.tracks[track].staleSourcePackets > 0, .notice,
            "track \(track): RTP of another source than the one the server announced is dropped while that one streams (an older session's)"
        )
        switch decision {
        case .held, .stale: return
        case .accepted(let released):
            for (held, heldArrival) in released { accept(held, track: track, arrival: heldArrival) }
            accept(packet, track: track, arrival: arrival)
        }
    }

    /// A packet of the track's source: counted, and handed to the consumer with this read's others.
    private func accept(_ packet: RTPPacket, track: Int, arrival time: ArrivalTime) {
        media.rtpPackets += 1
        media.tracks[track].senderSSRC = packet.ssrc
        media.tracks[track].latest = (packet.sequenceNumber, packet.timestamp)
        media.tracks[track].bytes += UInt64(packet.bytes.count)
        media.tracks[track].statistics.record(
            sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, arrival: time)
        let discontinuity = media.tracks[track].discontinuityPending
        if discontinuity {
            media.tracks[track].discontinuityPending = false
            recovery.mediaReturned(at: now)
        }
        batch.append(RTSPReceivedPacket(track: track, packet: packet, arrival: time, isDiscontinuity: discontinuity))
    }

    /// A seek was asked for: what the consumer has not taken yet is the old position's (it drops it), and
    /// what arrives until the answer is held, to be sorted by it.
    func holdForSeek() {
        handOver()
        position.seeks.add(1, ordering: .relaxed)
        media.seekHeld = []
    }

    /// A seek was answered: each track's media starts again from its RTP-Info sequence number (what comes
    /// before is the old position's, dropped), its first packet flagged as a discontinuity; the packets held
    /// since the seek was asked for go through that first.
    func startSeekedMedia(_ tracks: [RTSPTrack]) {
        for (index, track) in tracks.enumerated() where media.tracks.indices.contains(index) {
            media.tracks[index].description = track
            media.tracks[index].seekSequence = track.rtpInfo?.sequenceNumber
            media.tracks[index].discontinuityPending = true
        }
        let held = media.seekHeld ?? []
        media.seekHeld = nil
        for (packet, track, arrival) in held { route(packet, track: track, arrival: arrival) }
        handOver()
    }

    /// Hands the packets of this read to the consumer, in one piece.
    func handOver() {
        guard !batch.isEmpty || !batchReports.isEmpty else { return }
        let reports = batchReports
        batchReports = []
        if let handler = options.packetHandler {
            handler(batch[...], reports)
            batch.removeAll(keepingCapacity: true)
            return
        }
        // A consumer more than packetBufferCapacity packets (or packetBufferByteCapacity bytes) behind loses
        // what arrives until it catches up.
        let count = batch.count
        let (capacity, byteCapacity) = (options.packetBufferCapacity, options.packetBufferByteCapacity)
        let admitted = backlog.withLockedValue { backlog in
            var room = 0
            while room < count, backlog.packets < capacity,
                backlog.bytes + batch[room].packet.bytes.count <= byteCapacity
            {
                backlog.packets += 1
                backlog.bytes += batch[room].packet.bytes.count
                room += 1
            }
            return room
        }
        logFirst(
            media.droppedByConsumer == 0 && admitted < count, .warning,
            "the consumer fell behind: \(count - admitted) packet(s) were dropped")
        media.droppedByConsumer += count - admitted
        if admitted == count {
            continuation.yield(
                RTSPPackets.Batch(
                    packets: batch, senderReports: reports, position: position.seeks.load(ordering: .relaxed)))
            batch = []
        } else {
            if admitted > 0 || !reports.isEmpty {
                continuation.yield(
                    RTSPPackets.Batch(
                        packets: Array(batch[..<admitted]), senderReports: reports,
                        position: position.seeks.load(ordering: .relaxed)))
            }
            batch.removeAll(keepingCapacity: true)
        }
    }

    private func receivedRTCP(_ bytes: [UInt8], track: Int, arrival: ArrivalTime) {
        guard let packets = try? RTCPPacket.parseCompound(bytes) else { return media.invalidPackets += 1 }
        for case .senderReport(let report) in packets {
            // A report of another source (an older session's, a stray sender) would date the track's units
            // with another clock: only the track's own source sets it.
            guard media.tracks[track].isSource(report.ssrc) else {
                logFirst(
                    media.tracks[track].otherSourceReports == 0, .info,
                    "track \(track): a sender report of SSRC \(hex32(report.ssrc)), not the track's source, was ignored"
                )
                media.tracks[track].otherSourceReports += 1
                continue
            }
            media.tracks[track].lastSenderReport = (UInt32(truncatingIfNeeded: report.ntpTimestamp >> 16), arrival)
            media.tracks[track].senderReports += 1
            let sent = WallClockTime(ntp: report.ntpTimestamp).microsecondsSince1970
            media.tracks[track].senderClockOffset = .microseconds(sent &- WallClockTime.now().microsecondsSince1970)
            batchReports.append(ReceivedSenderReport(track: track, report: report))
        }
        // BYE from the track's sender: its stream is over; when every track's is, so is the session. A track
        // that never sent anything does not hold the session open: cameras describe, and set up, an audio
        // track they never send when their microphone is off.
        var streamEnded = false
        for case .goodbye(let bye) in packets {
            switch media.goodbye(bye.ssrcs, track: track) {
            case .notTheSender: continue
            case .trackEnded: logger.info("track \(track): the sender said BYE")
            case .streamEnded:
                logger.info("track \(track): the sender said BYE")
                streamEnded = true
            }
        }
        if phase == .playing && streamEnded {
            // RTP and RTCP can travel separately (UDP, or separate queues in the server): the last packets
            // may come after the BYE, so the session lingers until the tracks have been quiet a moment (a
            // receiver starved of CPU reads the RTP socket's backlog late). An end the server chose, not a
            // break: a reconnecting session ends too, and says why.
            logger.notice("the server ended the stream (RTCP BYE from every track's sender): the session ends")
            endAfterQuiet(since: now)
        }
    }

    /// Ends the session as ``ByeLinger`` says: once the tracks have been quiet a moment after the BYE.
    func endAfterQuiet(since bye: ArrivalTime) {
        schedule(at: now + ByeLinger.quiet) { [self] in
            let silence = now - media.lastArrival
            if ByeLinger(bye: bye).ends(now: now, silence: silence) { return teardown() }
            endAfterQuiet(since: bye)
        }
    }

    /// RTCP receiver reports (with a CNAME, as RFC 3550 asks of every compound packet) for each track
    /// that has received something.
    func sendReceiverReports() {
        guard phase == .playing else { return }
        for index in media.tracks.indices {
            guard let senderSSRC = media.tracks[index].senderSSRC else { continue }
            var lastSR: UInt32 = 0
            var delay: UInt32 = 0
            if let report = media.tracks[index].lastSenderReport {
                lastSR = report.ntpMiddle
                let nanoseconds = max(0, (now - report.arrival).nanosecondCount)
                delay = UInt32(clamping: nanoseconds * 65536 / 1_000_000_000)
            }
            let block = media.tracks[index].statistics.makeReportBlock(
                ssrc: senderSSRC, lastSenderReport: lastSR, delaySinceLastSenderReport: delay)
            var builder = RTCPCompoundBuilder()
            builder.appendReceiverReport(RTCPReceiverReport(ssrc: ssrc, reportBlocks: [block]))
            builder.appendCanonicalName(canonicalName, ssrc: ssrc)
            sendRTCP(builder.bytes, track: index)
            media.receiverReportsSent += 1
        }
    }

    func sendRTCP(_ bytes: [UInt8], track: Int) {
        trackWriter(track)?.writeRTCP(bytes)
    }

    /// Where the server sends each track from, and a first packet to each of its ports so that a NAT or
    /// firewall in between lets the media in (as FFmpeg and GStreamer do). The packets go to the address the
    /// RTSP connection reached; a Transport `source=` elsewhere is followed only when the options allow it
    /// (``RTSPSessionOptions/sendsToTransportSource``): the server would otherwise choose where we send.
    func openUDPPaths(_ tracks: [RTSPTrack]) {
        guard let remote = controlRemoteAddress else { return }
        for (index, track) in tracks.enumerated() where index < udpPairs.count {
            guard let ports = track.transport?.serverPorts else { continue }
            let source = options.sendsToTransportSource ? track.transport?.source : nil
            let host = source ?? remote.ipAddress ?? url.host
            guard let rtp = try? SocketAddress(ipAddress: host, port: Int(ports.rtp)),
                let rtcp = try? SocketAddress(ipAddress: host, port: Int(ports.rtcp))
            else { continue }
            media.tracks[index].rtcpAddress = rtcp
            media.tracks[index].rtpAddress = rtp
            // The track's first packet (a backchannel's outgoing track's; for a track we receive, an RTP header
            // alone from our SSRC), and an empty receiver report.
            var opening = FramedPackets(channel: 0)
            if var outgoing = backchannelTrack(index) {
                outgoing.openingPacket(capturedAt: WallClockTime.now(), into: &opening)
                backchannelTracks[index] = outgoing
            } else {
                var sender = RTPSender(
                    payloadType: track.format.payloadType, clockRate: track.format.clockRate, ssrc: ssrc,
                    firstSequenceNumber: 0, timestampOffset: 0)
                opening.append(
                    header: sender.nextHeader(
                        marker: false, timestamp: 0, payloadSize: 0, capturedAt: WallClockTime.now()),
                    payload: [][...])
            }
            trackWriter(index)?.write(opening)
            var builder = RTCPCompoundBuilder()
            builder.appendReceiverReport(RTCPReceiverReport(ssrc: ssrc, reportBlocks: []))
            builder.appendCanonicalName(canonicalName, ssrc: ssrc)
            sendRTCP(builder.bytes, track: index)
        }
    }

    func statistics() -> RTSPSessionStatistics {
        var statistics = RTSPSessionStatistics(
            transport: transport, fellBackToTCP: fellBackToTCP, tracks: media.statistics(),
            invalidPackets: media.invalidPackets, droppedByConsumer: media.droppedByConsumer,
            earlyPacketsDropped: media.earlyPacketsDropped, unknownChannelFrames: media.unknownChannelFrames,
            receiverReportsSent: media.receiverReportsSent, srtpAuthFailures: media.srtpFailures,
            requestsSent: requestsSent, reconnects: recovery.reconnects,
            timeWithoutMedia: recovery.timeWithoutMedia(at: now), lastBreak: recovery.lastBreak)
        statistics.backchannelPacketsDropped = media.backchannelPackets
        return statistics
    }
}
