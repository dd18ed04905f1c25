package io.cqlrows.capture.gen;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes a classic pcap file packet by packet: the 24-byte global header (little-endian, magic
 * {@code a1b2c3d4}, microsecond timestamps, snaplen 262144, link type 1 Ethernet), then for each
 * packet a 16-byte record header, a 14-byte Ethernet II header, a 20-byte IPv4 header (with its
 * checksum) and a 20-byte TCP header (checksum left 0, no options). Written independently of the
 * module's own pcap writer, whose output this generator checks. Buffers through a 64 KiB array and
 * never holds more; the caller's stream is flushed by {@link #flush()}, never closed. Not
 * thread-safe.
 */
final class PcapOut {
  /** TCP flags. */
  static final int FIN = 0x01;

  static final int SYN = 0x02;
  static final int PSH = 0x08;
  static final int ACK = 0x10;

  private static final int SNAPLEN = 262_144;
  private static final int HEADERS = 14 + 20 + 20;

  private final OutputStream out;
  private final byte[] buf = new byte[1 << 16];
  private int used;
  private long packets;
  private long bytes;
  private int ipId;

  PcapOut(OutputStream out) throws IOException {
    this.out = out;
    le32(0xa1b2c3d4);
    le16(2); // version 2.4
    le16(4);
    le32(0); // thiszone
    le32(0); // sigfigs
    le32(SNAPLEN);
    le32(1); // LINKTYPE_ETHERNET
  }

  /** Packets written so far. */
  long packets() {
    return packets;
  }

  /** Bytes written so far, the global header included. */
  long bytes() {
    return bytes + used;
  }

  /**
   * Writes one TCP/IPv4/Ethernet packet.
   *
   * @param micros the timestamp, microseconds since the epoch
   * @param seq the sequence number (taken modulo 2^32)
   * @param ack the acknowledgment number (taken modulo 2^32)
   * @param data the payload, {@code len} bytes of it from {@code off}
   */
  void packet(
      long micros,
      int srcIp,
      int srcPort,
      int dstIp,
      int dstPort,
      long seq,
      long ack,
      int flags,
      byte[] data,
      int off,
      int len)
      throws IOException {
    int wire = HEADERS + len;
    if (buf.length - used < 16 + HEADERS) {
      drain();
    }
    le32((int) (micros / 1_000_000));
    le32((int) (micros % 1_000_000));
    le32(wire);
    le32(wire);
    // Ethernet II: locally administered MACs made of the IP addresses
    mac(dstIp);
    mac(srcIp);
    be16(0x0800);
    // IPv4, 20 bytes, don't fragment, TTL 64, protocol 6
    int ip = used;
    be16(0x4500);
    be16(20 + 20 + len);
    be16(ipId++ & 0xffff);
    be16(0x4000);
    be16(0x4006);
    be16(0); // checksum, below
    be32(srcIp);
    be32(dstIp);
    int sum = checksum(buf, ip, 20);
    buf[ip + 10] = (byte) (sum >>> 8);
    buf[ip + 11] = (byte) sum;
    // TCP, 20 bytes
    be16(srcPort);
    be16(dstPort);
    be32((int) seq);
    be32((flags & ACK) != 0 ? (int) ack : 0);
    be16(0x5000 | flags);
    be16(65_535); // window
    be16(0); // checksum: not computed (allowed for captures, e.g. with checksum offload)
    be16(0); // urgent pointer
    copy(data, off, len);
    packets++;
  }

  /** Writes out the buffered bytes and flushes the stream. */
  void flush() throws IOException {
    drain();
    out.flush();
  }

  /** The IPv4 header checksum (RFC 791): ones' complement of the ones' complement sum. */
  static int checksum(byte[] b, int off, int len) {
    int sum = 0;
    for (int i = 0; i < len; i += 2) {
      sum += ((b[off + i] & 0xff) << 8) | (b[off + i + 1] & 0xff);
    }
    while ((sum >>> 16) != 0) {
      sum = (sum & 0xffff) + (sum >>> 16);
    }
    return ~sum & 0xffff;
  }

  private void copy(byte[] data, int off, int len) throws IOException {
    while (len > 0) {
      if (used == buf.length) {
        drain();
      }
      int k = Math.min(len, buf.length - used);
      System.arraycopy(data, off, buf, used, k);
      used += k;
      off += k;
      len -= k;
    }
  }

  private void drain() throws IOException {
    out.write(buf, 0, used);
    bytes += used;
    used = 0;
  }

  private void mac(int ip) {
    buf[used++] = 0x02;
    buf[used++] = 0x00;
    be32(ip);
  }

  private void le16(int v) {
    buf[used++] = (byte) v;
    buf[used++] = (byte) (v >>> 8);
  }

  private void le32(int v) {
    le16(v);
    le16(v >>> 16);
  }

  private void be16(int v) {
    buf[used++] = (byte) (v >>> 8);
    buf[used++] = (byte) v;
  }

  private void be32(int v) {
    be16(v >>> 16);
    be16(v);
  }
}
