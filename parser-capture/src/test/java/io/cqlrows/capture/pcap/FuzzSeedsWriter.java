package io.cqlrows.capture.pcap;

import io.cqlrows.netty.ScyllaSession;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.internal.SegmentBuilder;
import io.cqlrows.testing.Corpus;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.compression.Snappy;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The seed step of parser-netty's fuzz tests: cuts small seeds out of the real captures of the
 * corpus (parser-core's test resources) and writes them into Jazzer's regression-input directories,
 * where {@code mvn verify} replays them and a fuzzing run starts from them. Not run by default (its
 * name matches no Surefire include, and it needs a property); run it after a corpus change with
 *
 * <pre>
 * mvn -o -pl parser-core,parser-netty -am test -Dtest=FuzzSeedsWriter \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dcqlrows.writeFuzzSeeds=true
 * </pre>
 *
 * <p>It writes {@code seed-*} files only, overwriting those of the same name; a fuzzing run's
 * {@code crash-*} findings beside them are left alone. Streams are cut at frame, segment or packet
 * boundaries to at most {@link #MAX} bytes:
 *
 * <ul>
 *   <li>{@code frame/FrameDecoderFuzzTestInputs/v4Frames}: the server streams of a-v4 (no
 *       compression) and d-v4-lz4 (LZ4 bodies), a-v4's frames with their bodies Snappy-compressed,
 *       a client stream, and the v5 captures from their first byte (for the detecting decoder,
 *       which switches to segments after READY); one with the 1 KiB body limit; a ScyllaDB v4
 *       session with its extensions on, plain, LZ4 and Snappy.
 *   <li>{@code frame/FrameDecoderFuzzTestInputs/v5Segments}: the segments after READY of b-v5
 *       (uncompressed) and c-v5-lz4 (LZ4), and a ROWS envelope split across three
 *       non-self-contained segments.
 *   <li>{@code pcap/PcapReaderFuzzTestInputs/readsAnyCapture}: the first packets of the a-v4 and
 *       b-v5 {@code capture.pcap}, packets from the middle of a connection, and the same packets as
 *       pcapng and as big-endian nanosecond pcap.
 * </ul>
 */
class FuzzSeedsWriter {
  /** Largest seed stream, in bytes. */
  static final int MAX = 4096;

  /** Largest frame or segment taken into a seed made of the small ones of a stream. */
  static final int MAX_UNIT = 1500;

  @Test
  @EnabledIfSystemProperty(named = "cqlrows.writeFuzzSeeds", matches = "true")
  void writeSeeds() throws IOException {
    Path module = Path.of(System.getProperty("basedir", "."));
    Path frames =
        module.resolve(
            "../parser-netty/src/test/resources/io/cqlrows/netty/internal/FrameDecoderFuzzTestInputs");
    writeFrameSeeds(frames.resolve("v4Frames"));
    writeSegmentSeeds(frames.resolve("v5Segments"));
    writePcapSeeds(
        module.resolve(
            "src/test/resources/io/cqlrows/capture/pcap/PcapReaderFuzzTestInputs/readsAnyCapture"));
  }

  // ---- v4Frames: byte 0 = mode | sink << 2 | chunk << 4; byte 1 = version | flags ----

  private static void writeFrameSeeds(Path dir) throws IOException {
    byte[] a0 = Corpus.bytes("a-v4", "conn-00.s2c.bin");
    byte[] a1 = Corpus.bytes("a-v4", "conn-01.s2c.bin");
    byte[] d0 = Corpus.bytes("d-v4-lz4", "conn-00.s2c.bin");
    byte[] d1 = Corpus.bytes("d-v4-lz4", "conn-01.s2c.bin");
    write(dir, "seed-a-v4-conn-00", seed(0, 2, 0, 1, 0), a0);
    write(dir, "seed-a-v4-conn-01", seed(0, 0, 7, 1, 0), frames(a1, 0, MAX));
    write(dir, "seed-a-v4-conn-01-later", seed(0, 1, 11, 1, 0x10), frames(a1, 96035, MAX));
    write(dir, "seed-a-v4-conn-01-small-limit", seed(0, 3, 0, 1, 0x08), frames(a1, 0, MAX));
    write(dir, "seed-a-v4-conn-01-small-frames", seed(0, 2, 8, 1, 0), smallFrames(a1, 0, MAX));
    write(
        dir,
        "seed-a-v4-conn-01-small-frames-raw",
        seed(0, 1, 0, 1, 0x14),
        smallFrames(a1, 1385206, MAX));
    write(dir, "seed-a-v4-client", seed(3, 0, 0, 1, 0), Corpus.bytes("a-v4", "conn-00.c2s.bin"));
    write(dir, "seed-d-v4-lz4-conn-00", seed(1, 2, 1, 1, 0x10), d0);
    write(dir, "seed-d-v4-lz4-conn-01", seed(1, 3, 0, 1, 0), frames(d1, 0, MAX));
    write(dir, "seed-d-v4-lz4-conn-01-small-frames", seed(1, 2, 3, 1, 0), smallFrames(d1, 0, MAX));
    write(dir, "seed-d-v4-lz4-detect", seed(3, 1, 6, 1, 0), d0);
    byte[] snappy = snappyFrames(a0);
    write(dir, "seed-a-v4-snappy", seed(2, 2, 0, 1, 0), snappy);
    write(dir, "seed-a-v4-snappy-detect", seed(3, 0, 2, 1, 0), snappy);
    // v5 from the start: unframed handshake, then segments after READY
    write(
        dir,
        "seed-b-v5-conn-00-detect",
        seed(3, 2, 0, 2, 0),
        Corpus.bytes("b-v5", "conn-00.s2c.bin"));
    write(
        dir,
        "seed-c-v5-lz4-conn-00-detect",
        seed(3, 3, 5, 2, 0),
        Corpus.bytes("c-v5-lz4", "conn-00.s2c.bin"));
    byte[] b1 = Corpus.bytes("b-v5", "conn-01.s2c.bin");
    write(
        dir,
        "seed-b-v5-conn-01-detect",
        seed(3, 1, 0, 2, 0x04),
        concat(Arrays.copyOf(b1, 9), segments(b1, 9, 3, MAX)));
    // a ScyllaDB v4 session with every extension on (flag 0x40): plain, LZ4, Snappy detected
    write(
        dir,
        "seed-scylla-v4-session",
        seed(0, 1, 0, 1, 0x40 | 0x04),
        ScyllaSession.write(Compression.NONE).serverToClient());
    write(
        dir,
        "seed-scylla-v4-lz4-session",
        seed(1, 2, 3, 1, 0x40 | 0x04),
        ScyllaSession.write(Compression.LZ4).serverToClient());
    write(
        dir,
        "seed-scylla-v4-snappy-detect",
        seed(3, 3, 0, 1, 0x40),
        ScyllaSession.write(Compression.SNAPPY).serverToClient());
  }

  /** Frames of a v3/v4 stream from {@code from}, whole frames up to {@code max} bytes. */
  static byte[] frames(byte[] s, int from, int max) {
    int p = from;
    while (p + 9 <= s.length) {
      int next = p + 9 + readInt(s, p + 5);
      if (next - from > max && p > from) {
        break;
      }
      p = next;
    }
    return Arrays.copyOfRange(s, from, Math.min(p, s.length));
  }

  /**
   * Frames of a v3/v4 stream from {@code from} that are at most {@link #MAX_UNIT} bytes each (the
   * larger ones left out), up to {@code max} bytes in all.
   */
  static byte[] smallFrames(byte[] s, int from, int max) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int p = from; p + 9 <= s.length; ) {
      int size = 9 + readInt(s, p + 5);
      if (size <= MAX_UNIT && p + size <= s.length) {
        if (out.size() + size > max) {
          break;
        }
        out.write(s, p, size);
      }
      p += size;
    }
    return out.toByteArray();
  }

  /** The stream's frames with every non-empty body Snappy-compressed (flag 0x01). */
  static byte[] snappyFrames(byte[] s) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int p = 0; p + 9 <= s.length; ) {
      int len = readInt(s, p + 5);
      byte[] body = Arrays.copyOfRange(s, p + 9, p + 9 + len);
      byte[] packed = snappy(body);
      out.write(s[p]);
      out.write(s[p + 1] | 0x01);
      out.write(s, p + 2, 3);
      out.writeBytes(
          new byte[] {
            (byte) (packed.length >>> 24),
            (byte) (packed.length >>> 16),
            (byte) (packed.length >>> 8),
            (byte) packed.length
          });
      out.writeBytes(packed);
      p += 9 + len;
    }
    return out.toByteArray();
  }

  private static byte[] snappy(byte[] data) {
    ByteBuf out = Unpooled.buffer();
    try {
      new Snappy().encode(Unpooled.wrappedBuffer(data), out, data.length);
      return ByteBufUtil.getBytes(out);
    } finally {
      out.release();
    }
  }

  // ---- v5Segments: byte 0 = format | sink << 2 | chunk << 4; byte 1 = version | flags ----

  private static void writeSegmentSeeds(Path dir) throws IOException {
    byte[] b1 = Corpus.bytes("b-v5", "conn-01.s2c.bin");
    byte[] c1 = Corpus.bytes("c-v5-lz4", "conn-01.s2c.bin");
    byte[] b0 = Corpus.bytes("b-v5", "conn-00.s2c.bin");
    write(dir, "seed-b-v5-conn-01", seed(0, 2, 0, 2, 0x20), segments(b1, 9, 3, MAX));
    write(dir, "seed-b-v5-conn-01-detect", seed(2, 3, 7, 2, 0), segments(b1, 9, 3, MAX));
    write(
        dir, "seed-b-v5-conn-01-small-segments", seed(0, 2, 0, 2, 0), smallSegments(b1, 9, 3, MAX));
    write(
        dir,
        "seed-b-v5-conn-01-small-segments-raw",
        seed(2, 1, 12, 2, 0x24),
        smallSegments(b1, 9, 3, MAX));
    write(dir, "seed-b-v5-conn-00", seed(0, 0, 1, 2, 0x10), segments(b0, 120, 3, MAX));
    write(dir, "seed-c-v5-lz4-conn-01", seed(1, 1, 0, 2, 0x20), segments(c1, 9, 5, MAX));
    write(dir, "seed-c-v5-lz4-conn-01-detect", seed(3, 2, 10, 2, 0), segments(c1, 9, 5, MAX));
    write(
        dir,
        "seed-c-v5-lz4-conn-01-small-segments",
        seed(1, 3, 0, 2, 0x10),
        smallSegments(c1, 9, 5, MAX));
    // one ROWS envelope in three non-self-contained slices, then a self-contained VOID result
    byte[] envelope = frames(Corpus.bytes("a-v4", "conn-01.s2c.bin"), 109193, 1);
    envelope[0] = (byte) 0x85;
    int third = envelope.length / 3;
    byte[] voidResult = {(byte) 0x85, 0, 0, 1, 0x08, 0, 0, 0, 4, 0, 0, 0, 1};
    write(
        dir,
        "seed-slices",
        seed(0, 3, 0, 2, 0x20),
        concat(
            SegmentBuilder.uncompressed(Arrays.copyOfRange(envelope, 0, third), false),
            SegmentBuilder.uncompressed(Arrays.copyOfRange(envelope, third, 2 * third), false),
            SegmentBuilder.uncompressed(
                Arrays.copyOfRange(envelope, 2 * third, envelope.length), false),
            SegmentBuilder.uncompressed(voidResult, true)));
    write(
        dir,
        "seed-slices-lz4",
        seed(1, 0, 4, 2, 0x20),
        concat(
            SegmentBuilder.lz4(Arrays.copyOfRange(envelope, 0, third), false),
            SegmentBuilder.lz4(Arrays.copyOfRange(envelope, third, envelope.length), false),
            SegmentBuilder.lz4(voidResult, true)));
  }

  /**
   * Whole segments from {@code from} up to {@code max} bytes (at least one), walking the
   * little-endian header of {@code headerLength} bytes (3 uncompressed, 5 LZ4).
   */
  /**
   * Self-contained segments from {@code from} of at most {@link #MAX_UNIT} bytes each (the others
   * left out), up to {@code max} bytes in all; {@code headerLength} 3 uncompressed, 5 LZ4.
   */
  static byte[] smallSegments(byte[] s, int from, int headerLength, int max) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int p = from; p + headerLength + 3 <= s.length; ) {
      long word = 0;
      for (int i = 0; i < headerLength; i++) {
        word |= (long) (s[p + i] & 0xFF) << (8 * i);
      }
      int size = headerLength + 3 + (int) (word & 0x1FFFF) + 4;
      boolean selfContained = (word >>> (headerLength == 3 ? 17 : 34) & 1) != 0;
      if (selfContained && size <= MAX_UNIT && p + size <= s.length) {
        if (out.size() + size > max) {
          break;
        }
        out.write(s, p, size);
      }
      p += size;
    }
    return out.toByteArray();
  }

  static byte[] segments(byte[] s, int from, int headerLength, int max) {
    int p = from;
    while (p + headerLength + 3 <= s.length) {
      int length = (s[p] & 0xFF) | (s[p + 1] & 0xFF) << 8 | (s[p + 2] & 0x01) << 16;
      int next = p + headerLength + 3 + length + 4;
      if (next - from > max && p > from) {
        break;
      }
      p = next;
    }
    return Arrays.copyOfRange(s, from, Math.min(p, s.length));
  }

  // ---- readsAnyCapture: the capture file itself ----

  private static void writePcapSeeds(Path dir) throws IOException {
    for (String capture : new String[] {"a-v4", "b-v5"}) {
      byte[] file = Corpus.bytes(capture, "capture.pcap");
      List<PcapPacket> packets = packets(file);
      write(dir, "seed-" + capture + "-start", new byte[0], cut(file, packets, 2 * MAX));
      if (capture.equals("a-v4")) {
        // from the middle of the pool connection: the reassembler guesses, the replay syncs
        List<PcapPacket> middle = fit(packets, 40, 2 * MAX);
        write(
            dir,
            "seed-a-v4-middle",
            new byte[0],
            PcapFiles.classic(middle.get(0).linkType(), middle));
        List<PcapPacket> start = fit(packets, 0, 2 * MAX);
        PcapFiles.Pcapng ng =
            new PcapFiles.Pcapng(ByteOrder.LITTLE_ENDIAN).iface(start.get(0).linkType(), 0, 9, 0);
        for (PcapPacket p : start) {
          ng.enhanced(0, p.timestampNanos(), p.data());
        }
        write(dir, "seed-a-v4-start-pcapng", new byte[0], ng.toBytes());
        write(
            dir,
            "seed-a-v4-start-nanos-big-endian",
            new byte[0],
            PcapFiles.classic(ByteOrder.BIG_ENDIAN, true, start.get(0).linkType(), start));
      }
    }
  }

  private static List<PcapPacket> packets(byte[] file) throws IOException {
    List<PcapPacket> out = new ArrayList<>();
    try (PcapReader reader = new PcapReader(new ByteArrayInputStream(file))) {
      for (PcapPacket p; (p = reader.next()) != null; ) {
        out.add(p);
      }
    }
    return out;
  }

  /** The file up to the first record that would take it past {@code max} bytes. */
  private static byte[] cut(byte[] file, List<PcapPacket> packets, int max) {
    long end = file.length;
    for (PcapPacket p : packets) {
      if (p.fileOffset() + 16 + p.data().length > max) {
        end = p.fileOffset();
        break;
      }
    }
    return Arrays.copyOf(file, (int) end);
  }

  /** Packets from {@code first} whose data add up to at most {@code max} bytes. */
  private static List<PcapPacket> fit(List<PcapPacket> packets, int first, int max) {
    List<PcapPacket> out = new ArrayList<>();
    int total = 0;
    for (int i = first; i < packets.size(); i++) {
      total += packets.get(i).data().length + 16;
      if (total > max && !out.isEmpty()) {
        break;
      }
      out.add(packets.get(i));
    }
    return out;
  }

  // ---- helpers ----

  /**
   * The two config bytes of {@code FrameDecoderFuzzTest}; {@code version} is the reader's protocol
   * version less 3 (1 for v4, 2 for v5).
   */
  private static byte[] seed(int mode, int sink, int chunk, int version, int flags) {
    return new byte[] {(byte) (mode | sink << 2 | chunk << 4), (byte) (version | flags)};
  }

  static int readInt(byte[] b, int at) {
    return (b[at] & 0xFF) << 24
        | (b[at + 1] & 0xFF) << 16
        | (b[at + 2] & 0xFF) << 8
        | (b[at + 3] & 0xFF);
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  private static void write(Path dir, String name, byte[] head, byte[] body) throws IOException {
    Files.createDirectories(dir);
    Files.write(dir.resolve(name), concat(head, body));
  }
}
