package io.cqlrows.capture.pcap;

import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * Writes synthetic packet headers: Ethernet II, IPv4 (with header checksum) or IPv6, and TCP (with
 * the pseudo-header checksum), around a payload. Used by {@link PcapWriter}, and by tests to craft
 * captures.
 *
 * <p>Stateless.
 */
final class PacketEncoder {
  static final int ETHERNET_HEADER = 14;
  static final int IPV4_HEADER = 20;
  static final int IPV6_HEADER = 40;
  static final int TCP_HEADER = 20;

  /** The largest TCP payload in one IPv4 packet: 65535 - 20 - 20. */
  static final int MAX_PAYLOAD = 65535 - IPV4_HEADER - TCP_HEADER;

  private PacketEncoder() {}

  /** Header length of the IP version of {@code address}. */
  static int ipHeaderLength(InetSocketAddress address) {
    return address.getAddress() instanceof Inet4Address ? IPV4_HEADER : IPV6_HEADER;
  }

  /** Writes an Ethernet header with zero MAC addresses, as on Linux loopback. */
  static int ethernet(byte[] out, int at, boolean ipv6) {
    Arrays.fill(out, at, at + 12, (byte) 0);
    putU16(out, at + 12, ipv6 ? 0x86DD : 0x0800);
    return ETHERNET_HEADER;
  }

  /**
   * Writes an IP packet carrying one TCP segment at {@code out[at]}; returns its length. Addresses
   * must be of one IP version; the payload at most {@link #MAX_PAYLOAD} bytes.
   */
  static int ipTcp(
      byte[] out,
      int at,
      InetSocketAddress source,
      InetSocketAddress destination,
      int seq,
      int ack,
      int flags,
      int ipId,
      byte[] payload,
      int off,
      int len) {
    byte[] src = source.getAddress().getAddress();
    byte[] dst = destination.getAddress().getAddress();
    int ipLength = src.length == 4 ? IPV4_HEADER : IPV6_HEADER;
    int tcpLength = TCP_HEADER + len;
    if (src.length == 4) {
      ipv4(out, at, src, dst, tcpLength, ipId);
    } else {
      ipv6(out, at, src, dst, tcpLength);
    }
    int tcp = at + ipLength;
    putU16(out, tcp, source.getPort());
    putU16(out, tcp + 2, destination.getPort());
    putI32(out, tcp + 4, seq);
    putI32(out, tcp + 8, ack);
    out[tcp + 12] = (byte) ((TCP_HEADER / 4) << 4);
    out[tcp + 13] = (byte) flags;
    putU16(out, tcp + 14, 65535); // window
    putU16(out, tcp + 16, 0); // checksum, below
    putU16(out, tcp + 18, 0); // urgent pointer
    System.arraycopy(payload, off, out, tcp + TCP_HEADER, len);
    long sum = sum(src, 0, src.length, 0);
    sum = sum(dst, 0, dst.length, sum) + 6 + tcpLength; // <zero><protocol><TCP length>
    putU16(out, tcp + 16, finish(sum(out, tcp, tcpLength, sum)));
    return ipLength + tcpLength;
  }

  // <ver/ihl><tos><total length><id><DF, offset 0><ttl><protocol><checksum><source><destination>
  private static void ipv4(byte[] out, int at, byte[] src, byte[] dst, int tcpLength, int id) {
    out[at] = 0x45;
    out[at + 1] = 0;
    putU16(out, at + 2, IPV4_HEADER + tcpLength);
    putU16(out, at + 4, id);
    putU16(out, at + 6, 0x4000);
    out[at + 8] = 64;
    out[at + 9] = 6;
    putU16(out, at + 10, 0);
    System.arraycopy(src, 0, out, at + 12, 4);
    System.arraycopy(dst, 0, out, at + 16, 4);
    putU16(out, at + 10, finish(sum(out, at, IPV4_HEADER, 0)));
  }

  // <ver/class/flow:4><payload length:2><next header><hop limit><source:16><destination:16>
  private static void ipv6(byte[] out, int at, byte[] src, byte[] dst, int tcpLength) {
    putI32(out, at, 0x6000_0000);
    putU16(out, at + 4, tcpLength);
    out[at + 6] = 6;
    out[at + 7] = 64;
    System.arraycopy(src, 0, out, at + 8, 16);
    System.arraycopy(dst, 0, out, at + 24, 16);
  }

  /** Adds {@code b[off, off + len)} as big-endian 16-bit words (odd tail padded) to {@code sum}. */
  static long sum(byte[] b, int off, int len, long sum) {
    int i = off;
    for (int end = off + len - 1; i < end; i += 2) {
      sum += ((b[i] & 0xFF) << 8) | (b[i + 1] & 0xFF);
    }
    if (i < off + len) {
      sum += (b[i] & 0xFF) << 8;
    }
    return sum;
  }

  /** The Internet checksum (RFC 1071) of an accumulated sum. */
  static int finish(long sum) {
    while ((sum >>> 16) != 0) {
      sum = (sum & 0xFFFF) + (sum >>> 16);
    }
    return (int) ~sum & 0xFFFF;
  }

  static void putU16(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 8);
    b[at + 1] = (byte) v;
  }

  static void putI32(byte[] b, int at, int v) {
    putU16(b, at, v >>> 16);
    putU16(b, at + 2, v);
  }
}
