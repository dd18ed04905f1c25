package io.cqlrows.capture.pcap;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/** Test helpers: IP/TCP packets and the link-layer headers around them. */
final class LinkLayers {
  private LinkLayers() {}

  /** An IPv4 or IPv6 packet with one TCP segment, checksums included. */
  static byte[] ipTcp(
      InetSocketAddress src, InetSocketAddress dst, int seq, int ack, int flags, byte[] payload) {
    byte[] out = new byte[60 + payload.length];
    int n = PacketEncoder.ipTcp(out, 0, src, dst, seq, ack, flags, 7, payload, 0, payload.length);
    return Arrays.copyOf(out, n);
  }

  /** Ethernet II around an IP packet. */
  static byte[] ethernet(byte[] ip) {
    return vlan(ip);
  }

  /** Ethernet II with VLAN tags of the given TPIDs (0x8100, 0x88a8) around an IP packet. */
  static byte[] vlan(byte[] ip, int... tpids) {
    ByteBuffer b = ByteBuffer.allocate(14 + 4 * tpids.length + ip.length);
    b.put(new byte[] {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2});
    for (int i = 0; i < tpids.length; i++) {
      b.putShort((short) tpids[i]).putShort((short) (100 + i)); // TPID, then TCI (VLAN id)
    }
    b.putShort((short) etherType(ip)).put(ip);
    return b.array();
  }

  /** Linux cooked capture v1 (16-byte header) around an IP packet. */
  static byte[] sll(byte[] ip) {
    ByteBuffer b = ByteBuffer.allocate(16 + ip.length);
    b.putShort((short) 0).putShort((short) 772).putShort((short) 6); // to us, loopback, addr len
    b.put(new byte[8]).putShort((short) etherType(ip)).put(ip);
    return b.array();
  }

  /** Linux cooked capture v2 (20-byte header) around an IP packet. */
  static byte[] sll2(byte[] ip) {
    ByteBuffer b = ByteBuffer.allocate(20 + ip.length);
    b.putShort((short) etherType(ip)).putShort((short) 0).putInt(1); // protocol, reserved, ifindex
    b.putShort((short) 772).put((byte) 0).put((byte) 6).put(new byte[8]).put(ip);
    return b.array();
  }

  /** BSD NULL loopback: the address family in the given byte order. */
  static byte[] nullLoopback(byte[] ip, ByteOrder order, int family) {
    return ByteBuffer.allocate(4 + ip.length).order(order).putInt(family).put(ip).array();
  }

  private static int etherType(byte[] ip) {
    return (ip[0] & 0xF0) == 0x60 ? 0x86DD : 0x0800;
  }

  static InetSocketAddress address(String ip, int port) {
    try {
      return new InetSocketAddress(InetAddress.getByName(ip), port);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
