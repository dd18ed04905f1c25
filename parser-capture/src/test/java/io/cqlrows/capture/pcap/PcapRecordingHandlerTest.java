package io.cqlrows.capture.pcap;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.cqlrows.capture.Tshark;
import io.cqlrows.capture.pcap.TcpStream.Gap;
import io.cqlrows.netty.CqlTestFrames;
import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PcapRecordingHandlerTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2025-06-01T12:00:00Z"), ZoneOffset.UTC);

  /** Wireshark's PI_WARN severity; chats (handshake) and notes (FIN) are fine. */
  private static final int EXPERT_WARNING = 0x00600000;

  /** OPTIONS request, protocol v4, stream 1 (native_protocol_v4.spec section 4.1.3). */
  static ByteBuf options() {
    return CqlTestFrames.frame(0x04, 0, 1, 0x05, new byte[0]);
  }

  /** SUPPORTED response to it: a [string multimap] (native_protocol_v4.spec section 4.2.4). */
  static ByteBuf supported() {
    byte[] body =
        CqlBytes.create()
            .int16(2)
            .string("CQL_VERSION")
            .int16(1)
            .string("3.4.7")
            .string("COMPRESSION")
            .int16(2)
            .string("lz4")
            .string("snappy")
            .toArray();
    return CqlTestFrames.frame(0x84, 0, 1, 0x06, body);
  }

  /** QUERY on stream 2 with a query string of about 300 KB (native_protocol_v4.spec 4.1.4). */
  static ByteBuf bigQuery() {
    StringBuilder q = new StringBuilder("SELECT * FROM ks.t WHERE id IN (0");
    for (int i = 1; q.length() < 300_000; i++) {
      q.append(',').append(i);
    }
    byte[] text = q.append(')').toString().getBytes(UTF_8);
    byte[] body = CqlBytes.create().int32(text.length).toArray();
    body = concat(body, text, CqlBytes.create().int16(1).int8(0).toArray());
    return CqlTestFrames.frame(0x04, 0, 2, 0x07, body);
  }

  /** RESULT Void on stream 2 (native_protocol_v4.spec section 4.2.5.1). */
  static ByteBuf voidResult() {
    return CqlTestFrames.frame(0x84, 0, 2, 0x08, CqlBytes.create().int32(1).toArray());
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** A buffer whose readable bytes start after a prefix, to catch reads from index 0. */
  private static ByteBuf behindPrefix(ByteBuf frame) {
    ByteBuf b = Unpooled.buffer(frame.readableBytes() + 3);
    b.writeBytes(new byte[] {'x', 'y', 'z'}).writeBytes(frame).readerIndex(3);
    frame.release();
    return b;
  }

  /** Sends each buffer through the channel and checks it came out untouched. */
  private static void passOutbound(EmbeddedChannel ch, ByteBuf buf) {
    int reader = buf.readerIndex();
    int writer = buf.writerIndex();
    ch.writeOutbound(buf);
    assertSame(buf, ch.readOutbound());
    assertUntouched(buf, reader, writer);
  }

  private static void passInbound(EmbeddedChannel ch, ByteBuf buf) {
    int reader = buf.readerIndex();
    int writer = buf.writerIndex();
    ch.writeInbound(buf);
    assertSame(buf, ch.readInbound());
    assertUntouched(buf, reader, writer);
  }

  private static void assertUntouched(ByteBuf buf, int reader, int writer) {
    assertEquals(1, buf.refCnt());
    assertEquals(reader, buf.readerIndex());
    assertEquals(writer, buf.writerIndex());
  }

  private static byte[] readable(ByteBuf... bufs) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (ByteBuf b : bufs) {
      out.writeBytes(ByteBufUtil.getBytes(b));
    }
    return out.toByteArray();
  }

  /** Records OPTIONS, SUPPORTED, a 300 KB QUERY and a Void RESULT through {@code handler}. */
  private static void converse(
      PcapRecordingHandler handler, byte[][] expectC2s, byte[][] expectS2c) {
    EmbeddedChannel ch = new EmbeddedChannel(handler);
    ByteBuf options = options();
    ByteBuf supported = supported();
    ByteBuf query = behindPrefix(bigQuery());
    ByteBuf result = voidResult();
    try {
      passOutbound(ch, options);
      passInbound(ch, supported);
      passOutbound(ch, query);
      passInbound(ch, result);
      expectC2s[0] = readable(options, query);
      expectS2c[0] = readable(supported, result);
      ch.close();
      assertFalse(ch.finish());
    } finally {
      for (ByteBuf b : List.of(options, supported, query, result)) {
        assertTrue(b.release());
      }
    }
  }

  @Test
  void recordsBothDirectionsWithoutTouchingTheBuffers() throws IOException {
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    PcapRecordingHandler handler =
        new PcapRecordingHandler(PcapWriter.builder(file).clock(CLOCK).build());
    byte[][] c2s = new byte[1][];
    byte[][] s2c = new byte[1][];
    converse(handler, c2s, s2c);
    List<TcpConnection> all =
        TcpReassembler.reassemble(new ByteArrayInputStream(file.toByteArray()));

    assertNull(handler.recordingError());
    assertEquals(1, all.size());
    TcpConnection c = all.get(0);
    assertTrue(c2s[0].length > 300_000);
    assertArrayEquals(c2s[0], c.clientToServer().bytes());
    assertArrayEquals(s2c[0], c.serverToClient().bytes());
    assertEquals(9042, c.server().getPort());
    assertTrue(c.closed());
    assertFalse(c.hasGaps() || c.startedMidStream());
  }

  @Test
  void recordsIntoAFileGivenByPath(@TempDir Path dir) throws IOException {
    Path path = dir.resolve("conn.pcap");
    PcapRecordingHandler handler = new PcapRecordingHandler(path);
    byte[][] c2s = new byte[1][];
    byte[][] s2c = new byte[1][];
    converse(handler, c2s, s2c);
    TcpConnection c = TcpReassembler.reassemble(path).get(0);

    assertNull(handler.recordingError());
    assertArrayEquals(c2s[0], c.clientToServer().bytes());
    assertArrayEquals(s2c[0], c.serverToClient().bytes());
  }

  @Test
  void passesOtherMessagesOnAndMarksAFileRegionAsMissingBytes(@TempDir Path dir)
      throws IOException {
    Path region = Files.write(dir.resolve("region"), new byte[100]);
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    PcapRecordingHandler handler = new PcapRecordingHandler(file);
    EmbeddedChannel ch = new EmbeddedChannel(handler);
    ByteBuf before = Unpooled.wrappedBuffer(new byte[] {1, 2});
    ByteBuf after = Unpooled.wrappedBuffer(new byte[] {3});
    DefaultFileRegion fileRegion = new DefaultFileRegion(region.toFile(), 10, 40);

    passOutbound(ch, before);
    ch.writeOutbound("not bytes");
    assertEquals("not bytes", ch.readOutbound());
    ch.writeOutbound(fileRegion);
    assertSame(fileRegion, ch.readOutbound());
    passOutbound(ch, after);
    ch.writeInbound(42);
    assertEquals(42, (Integer) ch.readInbound());
    assertFalse(ch.finish());
    assertTrue(before.release() && after.release() && fileRegion.release());
    TcpConnection c =
        TcpReassembler.reassemble(new ByteArrayInputStream(file.toByteArray())).get(0);

    assertArrayEquals(new byte[] {1, 2, 3}, c.clientToServer().bytes());
    assertEquals(List.of(new Gap(2, 40)), c.clientToServer().gaps());
  }

  @Test
  void aFailingFileStopsTheRecordingButNotTheChannel() {
    IOException diskFull = new IOException("disk full");
    OutputStream failing =
        new OutputStream() {
          private int writes;

          @Override
          public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
          }

          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            if (++writes > 3) { // the file header and two packets of the handshake
              throw diskFull;
            }
          }
        };
    PcapRecordingHandler handler = new PcapRecordingHandler(failing);
    EmbeddedChannel ch = new EmbeddedChannel(handler);
    ByteBuf first = options();
    ByteBuf second = supported();
    try {
      passOutbound(ch, first);
      passInbound(ch, second);
      assertTrue(ch.isOpen());
      assertSame(diskFull, handler.recordingError());
      assertFalse(ch.finish());
    } finally {
      assertTrue(first.release() && second.release());
    }
  }

  @Test
  void recordsWithDefaultAddressesWhenTheChannelHasNoIpAddresses() throws IOException {
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    EmbeddedChannel ch = new EmbeddedChannel(new PcapRecordingHandler(file));
    ByteBuf data = Unpooled.wrappedBuffer(new byte[77]);
    passInbound(ch, data);
    assertTrue(data.release());
    assertFalse(ch.finish());
    TcpConnection c =
        TcpReassembler.reassemble(new ByteArrayInputStream(file.toByteArray())).get(0);

    assertTrue(c.client().getAddress().isLoopbackAddress());
    assertEquals(9042, c.server().getPort());
    assertEquals(77, c.serverToClient().length());
  }

  @Test
  void tsharkDissectsTheRecordingAsCqlWithValidChecksums(@TempDir Path dir) throws Exception {
    assumeTrue(Tshark.available(), "tshark is not on the PATH");
    Path path = dir.resolve("conn.pcap");
    PcapRecordingHandler handler =
        new PcapRecordingHandler(
            PcapWriter.builder(Files.newOutputStream(path)).clock(CLOCK).build());
    converse(handler, new byte[1][], new byte[1][]);
    assertNull(handler.recordingError());
    Path errors = dir.resolve("stderr");
    Process tshark =
        new ProcessBuilder(
                "tshark",
                "-r",
                path.toString(),
                "-o",
                "tcp.check_checksum:TRUE",
                "-o",
                "ip.check_checksum:TRUE",
                "-d",
                "tcp.port==9042,cql",
                "-T",
                "fields",
                "-e",
                "tcp.stream",
                "-e",
                "cql.opcode",
                "-e",
                "ip.checksum.status",
                "-e",
                "tcp.checksum.status",
                "-e",
                "_ws.expert.severity")
            .redirectError(errors.toFile())
            .start();
    List<String> lines = new String(tshark.getInputStream().readAllBytes(), UTF_8).lines().toList();
    assertTrue(tshark.waitFor(60, TimeUnit.SECONDS), "tshark finished");

    assertEquals(0, tshark.exitValue());
    assertEquals(
        List.of(),
        Files.readAllLines(errors).stream().filter(l -> !l.startsWith("Running as user")).toList(),
        "tshark's complaints");
    List<Integer> opcodes = new ArrayList<>();
    for (String line : lines) {
      String[] f = line.split("\t", -1);
      assertEquals("0", f[0], "one TCP stream: " + line);
      for (String op : f[1].isEmpty() ? new String[0] : f[1].split(",")) {
        opcodes.add(Integer.parseInt(op));
      }
      assertEquals("1", f[2], "IPv4 checksum good: " + line);
      assertEquals("1", f[3], "TCP checksum good: " + line);
      for (String severity : f[4].isEmpty() ? new String[0] : f[4].split(",")) {
        assertTrue(Integer.parseInt(severity) < EXPERT_WARNING, "expert info: " + line);
      }
    }
    assertEquals(List.of(5, 6, 7, 8), opcodes, "OPTIONS, SUPPORTED, QUERY, RESULT");
  }
}
