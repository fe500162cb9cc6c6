import PacketCapture
import Testing

/// Addresses in text form, as a connection reports its peer, back to `IPAddress`.
@Suite struct IPAddressParsingTests {
    @Test(arguments: [
        "127.0.0.1", "192.0.2.255", "0.0.0.0", "::1", "::", "2001:db8::1", "fe80::1:2:3:4", "1:2:3:4:5:6:7:8",
        "::ffff:192.0.2.7",
    ])
    func roundTrips(text: String) throws {
        let address = try #require(IPAddress(parsing: text))
        // description writes RFC 5952 text; an embedded IPv4 tail comes back as hex groups.
        let expected = text == "::ffff:192.0.2.7" ? "::ffff:c000:207" : text
        #expect(address.description == expected)
    }

    @Test func aZoneIsIgnored() {
        #expect(IPAddress(parsing: "fe80::1%eth0") == IPAddress(parsing: "fe80::1"))
    }

    @Test(arguments: [
        "", "camera.local", "256.1.1.1", "1.2.3", "1.2.3.4.5", "01234.1.1.1", "1::2::3", "12345::", ":1",
        "1:2:3:4:5:6:7",
        "1:2:3:4:5:6:7:8:9", "1:2:3:4::5:6:7:8", "g::1", "::1.2.3", "١.٢.٣.٤",
    ])
    func refuses(text: String) {
        #expect(IPAddress(parsing: text) == nil)
    }
}
