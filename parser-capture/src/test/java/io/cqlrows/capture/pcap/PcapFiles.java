package io.cqlrows.capture.pcap;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/** Test helpers: capture files written byte by byte, in any format, order and resolution. */
final class PcapFiles {
  private PcapFiles() {}

  /** A classic pcap file; timestamps are cut to microseconds unless {@code nanos}. */
  static byte[] classic(ByteOrder order, boolean nanos, int linkType, List<PcapPacket> packets) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteBuffer h = ByteBuffer.allocate(24).order(order);
    h.putInt(nanos ? ClassicPcapSource.MAGIC_NANOS : ClassicPcapSource.MAGIC_MICROS);
    h.putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(262144).putInt(linkType);
    out.writeBytes(h.array());
    for (PcapPacket p : packets) {
      ByteBuffer r = ByteBuffer.allocate(16).order(order);
      long t = p.timestampNanos();
      r.putInt((int) (t / 1_000_000_000L));
      r.putInt((int) (nanos ? t % 1_000_000_000L : t % 1_000_000_000L / 1000));
      r.putInt(p.data().length).putInt((int) p.originalLength());
      out.writeBytes(r.array());
      out.writeBytes(p.data());
    }
    return out.toByteArray();
  }

  /** A classic little-endian microsecond pcap file. */
  static byte[] classic(int linkType, List<PcapPacket> packets) {
    return classic(ByteOrder.LITTLE_ENDIAN, false, linkType, packets);
  }

  /** A packet for {@link #classic} or {@link Pcapng}. */
  static PcapPacket packet(long timestampNanos, int linkType, byte[] data) {
    return new PcapPacket(timestampNanos, linkType, 0, data, data.length, 0);
  }

  /** A pcapng file, block by block. */
  static final class Pcapng {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private ByteOrder order;

    Pcapng(ByteOrder order) {
      section(order);
    }

    /** A Section Header Block: a new section in {@code order}, without interfaces. */
    Pcapng section(ByteOrder order) {
      this.order = order;
      ByteBuffer body = ByteBuffer.allocate(16).order(order);
      body.putInt(0x1A2B3C4D).putShort((short) 1).putShort((short) 0).putLong(-1);
      return block(0x0A0D0D0A, body.array());
    }

    /**
     * An Interface Description Block.
     *
     * @param tsresol the if_tsresol byte, or -1 for none (microseconds)
     * @param tsoffset if_tsoffset seconds, or 0 for none
     */
    Pcapng iface(int linkType, int snapLength, int tsresol, long tsoffset) {
      ByteBuffer b = ByteBuffer.allocate(8 + 8 + 12 + 4).order(order);
      b.putShort((short) linkType).putShort((short) 0).putInt(snapLength);
      if (tsresol >= 0) {
        b.putShort((short) 9).putShort((short) 1).put((byte) tsresol).put(new byte[3]);
      }
      if (tsoffset != 0) {
        b.putShort((short) 14).putShort((short) 8).putLong(tsoffset);
      }
      b.putShort((short) 0).putShort((short) 0); // opt_endofopt
      return block(1, slice(b));
    }

    /** An Enhanced Packet Block; {@code ticks} in the interface's resolution. */
    Pcapng enhanced(int iface, long ticks, byte[] data) {
      ByteBuffer b = ByteBuffer.allocate(20 + pad(data.length)).order(order);
      b.putInt(iface).putInt((int) (ticks >>> 32)).putInt((int) ticks);
      b.putInt(data.length).putInt(data.length).put(data);
      return block(6, b.array());
    }

    /** A Simple Packet Block. */
    Pcapng simple(byte[] data, int originalLength) {
      ByteBuffer b = ByteBuffer.allocate(4 + pad(data.length)).order(order);
      b.putInt(originalLength).put(data);
      return block(3, b.array());
    }

    /** Any block; the body is padded to 4 bytes. */
    Pcapng block(int type, byte[] body) {
      int length = 12 + pad(body.length);
      ByteBuffer b = ByteBuffer.allocate(length).order(order);
      b.putInt(type).putInt(length).put(body);
      b.position(length - 4);
      b.putInt(length);
      out.writeBytes(b.array());
      return this;
    }

    byte[] toBytes() {
      return out.toByteArray();
    }

    private static byte[] slice(ByteBuffer b) {
      byte[] a = new byte[b.position()];
      b.flip().get(a);
      return a;
    }

    private static int pad(int n) {
      return (n + 3) & ~3;
    }
  }
}
