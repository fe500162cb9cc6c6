// The README's "Using the library" examples, as code the tests build and run (ReadmeExamplesTests checks
// that every line of each README block is here, in order). Edit both together.
import SwiftRTP

/// "Reading a capture": every access unit of every video stream of a capture, its codec told from the
/// payloads, dated by the capture's RTCP sender reports.
func accessUnits(ofCapture path: String) throws -> [AccessUnit] {
    var units: [AccessUnit] = []
    var capture = try CaptureFile(contentsOf: path)
    var tracks = CaptureTracks()  // each RTP stream of the capture is a track
    var pipeline = MediaPipeline()
    while let datagram = try capture.nextDatagram() {
        switch tracks.sort(datagram) {
        case .packet(let received, let isNewTrack):
            if isNewTrack { _ = pipeline.addTrack(.sniffing()) }  // H.264 or H.265, told from its payloads
            pipeline.push(received)
        case .senderReports(let reports):
            for report in reports { pipeline.receiveSenderReport(report) }  // units get captureTime
        case nil:
            break  // not RTP: counted in tracks.rejected
        }
        while let unit = pipeline.next()?.accessUnit {  // a sniffed track is video or gives nothing
            units.append(unit)  // unit.track, unit.timestamp, unit.isKeyframe, unit.isComplete, unit.nalUnits
        }
    }
    pipeline.finish()
    while let unit = pipeline.next()?.accessUnit { units.append(unit) }
    return units
}

/// "Decoding": the newest frame of those units, as a consumer running at its own pace would take it.
func latestFrame(of units: [AccessUnit], parameterSets: ParameterSets?) throws -> (I420Frame?, Int) {
    let decoder = try FFmpegVideoDecoder(codec: .h264, parameterSets: parameterSets)
    let latest = LatestFrameSink()
    for unit in units {
        try decoder.decode(unit) { frame in latest.push(frame) }
    }
    // elsewhere, e.g. on a WebRTC capturer's tick:
    let frame = latest.take()  // frame.y, frame.u, frame.v, frame.timestamp, frame.mayBeDamaged
    return (frame, latest.droppedFrames + latest.deliveredFrames)  // every frame pushed
}

/// "A camera's video and audio": its video decoded to frames and its audio to 10 ms PCM chunks, each
/// dated on the camera's wall clock.
func videoAndAudio(of url: String) async throws -> (frames: [I420Frame], chunks: [PCMFrame]) {
    var frames: [I420Frame] = []
    var chunks: [PCMFrame] = []
    let session = try await RTSPSession.connect(to: url)  // every video and audio track
    let decoded = try session.media().decoded(
        video: { _, codec in try FFmpegVideoDecoder(codec: codec) },
        audio: { _, format in try FFmpegAudioDecoder(format: format) })
    var chunkers: [Int: PCMChunker] = [:]  // 10 ms blocks, what a WebRTC audio source takes
    for try await unit in decoded {
        switch unit {
        case .video(let frame):
            frames.append(frame)  // frame.track, frame.captureTime, frame.mayBeDamaged: to a video source
        case .audio(let pcm):
            chunkers[pcm.track, default: PCMChunker()].push(pcm)
            while let chunk = chunkers[pcm.track]?.nextChunk() {
                chunks.append(chunk)  // chunk.int16Interleaved, chunk.sampleRate, chunk.captureTime
            }
        case .metadata, .raw:
            break  // a session sets up metadata and application tracks only when asked (media: [.metadata])
        }
    }
    return (frames, chunks)
}

/// "A snapshot": a camera's picture now, as a JPEG file: one keyframe decoded and encoded, nothing kept running.
func snapshot(of url: String) async throws -> [UInt8] {
    let session = try await RTSPSession.connect(to: url)
    let units = try session.accessUnits()
    let sdpSets = units.format(track: 0)?.videoFormat.map { ParameterSets(format: $0) }  // cameras put them there
    var latest = LatestKeyframe(parameterSets: sdpSets)
    for try await unit in units {
        latest.note(unit)  // keeps the latest complete keyframe and the parameter sets seen
        if latest.keyframe != nil { break }
    }
    await session.teardown()
    return try JPEGSnapshot.jpeg(of: latest)  // JPEGSnapshot.jpeg(of: unit, parameterSets:) for a unit of yours
}

/// "Metadata": a camera's ONVIF metadata documents (analytics, events) and any other data track beside its
/// video.
func metadata(of url: String) async throws -> (documents: [MetadataDocument], rawUnits: [RawUnit]) {
    var options = RTSPSessionOptions()
    options.mediaKinds = [.video, .metadata, .application]  // data tracks are set up only when asked for
    let session = try await RTSPSession.connect(to: url, options: options)
    var documents: [MetadataDocument] = []
    var rawUnits: [RawUnit] = []
    for try await unit in try session.media() {
        switch unit {
        case .metadata(let document):
            documents.append(document)  // document.text (the XML, inflated), document.captureTime
        case .raw(let raw):
            rawUnits.append(raw)  // raw.bytes as sent (KLV, a vendor's track), raw.lostPackets
        case .video, .audio:
            break
        }
    }
    return (documents, rawUnits)
}

/// "Recording": every video and audio track of a camera to fragmented MP4, a file per `segment` (each
/// starting at a keyframe), each fragment written as it closes.
func record(_ url: String, to path: String, segment: Duration) async throws -> (files: [String], leftOut: Int) {
    let session = try await RTSPSession.connect(to: url)
    var writer = FragmentedMP4Writer(
        formats: session.tracks.map(\.format), configuration: .init(segmentDuration: segment))
    var files = MP4FileRecorder(path: path, segmented: true)  // path-00001.mp4, path-00002.mp4, ...
    for try await unit in try session.media() {
        try writer.append(unit) { try files.write($0) }  // a break (reconnect) goes on in the same file
    }
    try writer.finish { try files.write($0) }
    try files.close()
    return (files.files, writer.tracksLeftOut.count)  // tracks MP4 does not carry (G.726...), with the reason
}

/// "Serving recordings back": a directory of recordings served on demand, each viewer from where it asks.
func serveRecordings(in directory: String, port: Int) async throws -> RTSPServer {
    let server = RTSPServer(configuration: .init(port: port))
    try server.mount(recordingsIn: directory, at: "/recordings")  // rtsp://this-host:port/recordings/NAME
    try await server.start()
    return server  // H.264, H.265, AAC and G.711 served; a name outside the directory is 404
}

/// "Playing a recording": an NVR's ONVIF replay from a position, as fast as it sends, each picture dated with
/// the time it was recorded; then a jump back.
func replay(_ url: String, from start: String, thenFrom again: Double) async throws -> [(recorded: WallClockTime?, afterJump: Bool)] {
    var options = RTSPSessionOptions()
    options.playback = PlaybackRequest(range: try .init(parsing: start), onvifReplay: true)
    let session = try await RTSPSession.connect(to: url, options: options)
    var pictures: [(recorded: WallClockTime?, afterJump: Bool)] = []
    var jumped = false
    for try await unit in try session.accessUnits() {
        jumped = jumped || unit.isDiscontinuity  // the first unit of the new position is flagged
        pictures.append((unit.captureTime, jumped))  // captureTime: when it was recorded (RTP extension 0xABAC)
        if pictures.count == 30 {
            try await session.seek(PlaybackRequest(range: .npt(start: again, end: nil), onvifReplay: true))
        }
        if pictures.count == 60 { break }
    }
    return pictures
}

/// "Serving": a camera's tracks served again: one connection to the camera, any number of viewers, each over
/// TCP or UDP as it asks.
func relay(_ url: String, port: Int) async throws -> RTSPServer {
    let camera = try await RTSPSession.connect(to: url)
    let source = try MediaSource(formats: camera.tracks.map(\.format))  // H.264, H.265, G.711, AAC, Opus...
    let server = RTSPServer(configuration: .init(port: port))
    server.mount(source, at: "/camera")  // rtsp://this-host:port/camera
    try await server.start()
    Task {
        for try await unit in try camera.media() {
            source.push(unit)  // packetized once, sent to every viewer; its capture time goes in the reports
        }
        source.finish()  // the viewers get an RTCP BYE
    }
    return server
}

/// "Serving to browsers": a camera relayed to RTSP players and to browsers at once, without re-encoding (WebRTC:
/// WHEP and a player page on the HTTP port).
func relayToBrowsers(_ url: String, rtspPort: Int, httpPort: Int) async throws -> (RTSPServer, WebRTCServer) {
    let camera = try await RTSPSession.connect(to: url)
    let source = try MediaSource(formats: camera.tracks.map(\.format))
    let rtsp = RTSPServer(configuration: .init(port: rtspPort))
    let browsers = try WebRTCServer(configuration: .init(httpPort: httpPort))
    rtsp.mount(source, at: "/camera")  // rtsp://this-host:rtspPort/camera
    browsers.mount(source, at: "/camera")  // http://this-host:httpPort/camera/ plays it (H.264 and G.711)
    try await rtsp.start()
    try await browsers.start()
    Task {
        for try await unit in try camera.media() { source.push(unit) }  // packetized once for every viewer
        source.finish()
    }
    return (rtsp, browsers)
}

/// "Talking back from the browser": the relay to browsers with the camera's ONVIF backchannel, a viewer's
/// microphone going to the camera (two-way audio).
func relayToBrowsersWithTalk(_ url: String, httpPort: Int) async throws -> WebRTCServer {
    var options = RTSPSessionOptions()
    options.backchannel = true  // the camera's ONVIF audio backchannel, where it has one
    let camera = try await RTSPSession.connect(to: url, options: options)
    let sent = camera.tracks.filter { !$0.isBackchannel }  // what the camera sends (the backchannel comes last)
    let source = try MediaSource(formats: sent.map(\.format))
    let talkback = try camera.backchannel.map { backchannel in
        try Talkback(format: backchannel.format) { frame in backchannel.send(frame) }  // one talker at a time
    }
    let browsers = try WebRTCServer(configuration: .init(httpPort: httpPort))
    browsers.mount(source, at: "/camera", talkback: talkback)  // http://this-host:httpPort/camera/?talk talks
    try await browsers.start()
    Task {
        for try await unit in try camera.media() { source.push(unit) }
        source.finish()
    }
    return browsers
}

/// The README's error example: a session's failure matched by its code, its sentence kept.
func connectSaying(_ url: String) async -> String? {
    do {
        let session = try await RTSPSession.connect(to: url)
        await session.teardown()
        return nil
    } catch let error as RTSPClientError where error.code == .unauthorized {
        return "wrong user or password: \(error)"  // the sentence; never the password
    } catch {
        return "\(error)"
    }
}
