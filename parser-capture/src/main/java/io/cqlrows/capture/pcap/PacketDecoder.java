package io.cqlrows.capture.pcap;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Set;

/**
 * Decodes the link, IP and TCP headers of a captured packet into a {@link TcpSegment}, or null for
 * anything else (other protocols, non-first IP fragments, malformed or cut headers, unknown link
 * types).
 *
 * <ul>
 *   <li>Link layers: Ethernet II with any number of 802.1Q / 802.1ad / QinQ tags, Linux SLL and
 *       SLL2, BSD NULL (the family in either byte order) and LOOP, raw IP (101, 228, 229).
 *   <li>IPv4: header length, total length (which cuts Ethernet padding); a total length of 0, which
 *       Linux writes for TSO super-packets, means "the captured length". Non-first fragments are
 *       skipped; a first fragment is decoded, its missing tail becomes a gap.
 *   <li>IPv6: hop-by-hop, routing, destination-options and AH extension headers are skipped; a
 *       fragment header is treated like IPv4 fragmentation.
 *   <li>TCP: checksums are not verified, since captures taken on the sending host carry checksums
 *       the NIC fills in later.
 * </ul>
 *
 * <p>Each kind of problem is reported once, into the warning set given at construction. Never
 * throws on packet contents. Not thread-safe.
 */
final class PacketDecoder {
  private static final int ETHERTYPE_IPV4 = 0x0800;
  private static final int ETHERTYPE_IPV6 = 0x86DD;
  private static final int PROTOCOL_TCP = 6;

  /** Where notes about skipped packets go, each once. */
  private final Set<String> warnings;

  PacketDecoder(Set<String> warnings) {
    this.warnings = warnings;
  }

  /** The packet's TCP segment, or null. */
  TcpSegment decode(PcapPacket packet) {
    byte[] d = packet.data();
    switch (packet.linkType()) {
      case LinkType.ETHERNET:
        return d.length < 14 ? cut("Ethernet") : etherType(d, 12);
      case LinkType.LINUX_SLL:
        return d.length < 16 ? cut("Linux SLL") : etherType(d, 14);
      case LinkType.LINUX_SLL2:
        return d.length < 20 ? cut("Linux SLL2") : byEtherType(d, 20, u16(d, 0));
      case LinkType.NULL:
      case LinkType.LOOP:
        return d.length < 4 ? cut("loopback") : loopback(d);
      case LinkType.RAW:
      case LinkType.IPV4:
      case LinkType.IPV6:
        return ip(d, 0, d.length);
      default:
        warn("packets of link type " + packet.linkType() + " are not decoded and were ignored");
        return null;
    }
  }

  /** Reads the EtherType at {@code at}, then any VLAN tags, then IP. */
  private TcpSegment etherType(byte[] d, int at) {
    int type = u16(d, at);
    int next = at + 2;
    // 802.1Q (0x8100), 802.1ad (0x88A8), old QinQ (0x9100): <tci:2><inner type:2> <here>
    while (type == 0x8100 || type == 0x88A8 || type == 0x9100) {
      if (next + 4 > d.length) {
        return cut("VLAN tag");
      }
      type = u16(d, next + 2);
      next += 4;
    }
    return byEtherType(d, next, type);
  }

  private TcpSegment byEtherType(byte[] d, int at, int type) {
    if (type == ETHERTYPE_IPV4 || type == ETHERTYPE_IPV6) {
      return ip(d, at, d.length);
    }
    return null;
  }

  /** BSD NULL / LOOP: a 4-byte address family, in whichever byte order gives a known value. */
  private TcpSegment loopback(byte[] d) {
    int family = PcapInput.i32(d, 0, false);
    if ((family & 0xFFFF_0000) != 0) {
      family = Integer.reverseBytes(family);
    }
    switch (family) {
      case 2: // AF_INET everywhere
      case 10: // AF_INET6 on Linux
      case 24: // NetBSD, OpenBSD
      case 28: // FreeBSD, DragonFly
      case 30: // macOS
        return ip(d, 4, d.length);
      default:
        return null;
    }
  }

  /** An IPv4 or IPv6 packet in {@code d[at, end)}, by its version nibble. */
  private TcpSegment ip(byte[] d, int at, int end) {
    if (at >= end) {
      return cut("IP");
    }
    int version = (d[at] & 0xFF) >> 4;
    if (version == 4) {
      return ipv4(d, at, end);
    }
    return version == 6 ? ipv6(d, at, end) : null;
  }

  // <ver/ihl><tos><total length:2><id:2><flags/fragment offset:2><ttl><protocol><checksum:2>
  // <source:4><destination:4> options <here: payload>
  private TcpSegment ipv4(byte[] d, int at, int end) {
    if (end - at < 20) {
      return cut("IPv4");
    }
    int headerLength = (d[at] & 0x0F) * 4;
    int totalLength = u16(d, at + 2);
    if (totalLength == 0) {
      totalLength = end - at; // TSO: the length is filled in later
    }
    if (headerLength < 20 || totalLength < headerLength || at + headerLength > end) {
      return malformed("IPv4 header");
    }
    if ((d[at + 9] & 0xFF) != PROTOCOL_TCP || !firstFragment(u16(d, at + 6), "IPv4")) {
      return null;
    }
    int ipEnd = at + totalLength;
    return tcp(
        d,
        at + headerLength,
        Math.min(ipEnd, end),
        Math.max(0, ipEnd - end),
        address(d, at + 12, 4),
        address(d, at + 16, 4));
  }

  // <ver/class/flow:4><payload length:2><next header><hop limit><source:16><destination:16>
  private TcpSegment ipv6(byte[] d, int at, int end) {
    if (end - at < 40) {
      return cut("IPv6");
    }
    int payloadLength = u16(d, at + 4);
    int ipEnd = payloadLength == 0 ? end : at + 40 + payloadLength; // 0: jumbogram or TSO
    int next = d[at + 6] & 0xFF;
    int pos = at + 40;
    while (next != PROTOCOL_TCP) {
      if (pos + 8 > Math.min(ipEnd, end)) {
        return next == 0 || next == 43 || next == 60 || next == 51 || next == 44
            ? cut("IPv6 extension header")
            : null;
      }
      int length = extensionLength(d, pos, next);
      if (length < 0) {
        return null; // another protocol, or no next header (59)
      }
      next = d[pos] & 0xFF;
      pos += length;
    }
    return tcp(
        d,
        pos,
        Math.min(ipEnd, end),
        Math.max(0, ipEnd - end),
        address(d, at + 8, 16),
        address(d, at + 24, 16));
  }

  /** Length of the extension header {@code type} at {@code pos}, or -1 to stop. */
  private int extensionLength(byte[] d, int pos, int type) {
    switch (type) {
      case 0: // hop-by-hop options
      case 43: // routing
      case 60: // destination options
        return ((d[pos + 1] & 0xFF) + 1) * 8;
      case 51: // authentication header: length in 4-byte units, minus 2
        return ((d[pos + 1] & 0xFF) + 2) * 4;
      case 44: // fragment: <next><reserved><offset:13 bits, reserved:2, M:1><id:4>
        int field = u16(d, pos + 2);
        return firstFragment(((field & 1) << 13) | (field >>> 3), "IPv6") ? 8 : -1;
      default:
        return -1;
    }
  }

  /**
   * True unless a non-first fragment. {@code field} holds IPv4's layout: MF at bit 13, the offset
   * in the low 13 bits.
   */
  private boolean firstFragment(int field, String ip) {
    boolean moreFragments = (field & 0x2000) != 0;
    int fragmentOffset = field & 0x1FFF;
    if (moreFragments || fragmentOffset != 0) {
      warn(
          ip
              + " fragments were seen: fragments after the first are not reassembled, "
              + "so their bytes are missing from the streams");
    }
    return fragmentOffset == 0;
  }

  // <source port:2><destination port:2><seq:4><ack:4><data offset:4 bits, flags:12 bits>...
  private TcpSegment tcp(
      byte[] d, int at, int end, int missing, InetAddress source, InetAddress destination) {
    if (end - at < 20) {
      return cut("TCP");
    }
    int headerLength = ((d[at + 12] & 0xFF) >> 4) * 4;
    if (headerLength < 20 || at + headerLength > end) {
      return headerLength < 20 ? malformed("TCP header") : cut("TCP");
    }
    if (missing > 0) {
      warn(
          "packets were cut short by the capture's snapshot length; the missing bytes "
              + "become gaps");
    }
    return new TcpSegment(
        new InetSocketAddress(source, u16(d, at)),
        new InetSocketAddress(destination, u16(d, at + 2)),
        PcapInput.i32(d, at + 4, true),
        PcapInput.i32(d, at + 8, true),
        d[at + 13] & 0xFF,
        d,
        at + headerLength,
        end - at - headerLength,
        missing);
  }

  private TcpSegment cut(String header) {
    warn("packets cut inside their " + header + " header were ignored");
    return null;
  }

  private TcpSegment malformed(String header) {
    warn("packets with a malformed " + header + " were ignored");
    return null;
  }

  private void warn(String warning) {
    warnings.add(warning);
  }

  private static int u16(byte[] d, int at) {
    return PcapInput.u16(d, at, true);
  }

  private static InetAddress address(byte[] d, int at, int length) {
    try {
      return InetAddress.getByAddress(Arrays.copyOfRange(d, at, at + length));
    } catch (UnknownHostException e) {
      throw new AssertionError("4 or 16 bytes are always an address", e);
    }
  }
}
