package io.cqlrows.capture.pcap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.capture.digest.Digest;
import io.cqlrows.capture.digest.DigestReport;
import io.cqlrows.capture.replay.ConnectionReplay;
import io.cqlrows.capture.replay.FileReplay;
import io.cqlrows.capture.replay.PreparedStatements;
import io.cqlrows.capture.replay.ReplayListener;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.testing.Corpus;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link FileReplay} on real captures, reordered ones, damaged ones and files that are none. */
class FileReplayCaptureTest {
  @TempDir Path dir;

  /** Every result of every connection, as text, by connection label. */
  private static final class Results implements FileReplay.Handler {
    final Map<String, List<String>> byConnection = new TreeMap<>();
    final List<String> notes = new ArrayList<>();
    final List<Optional<CqlFrameException>> failures = new ArrayList<>();

    @Override
    public ReplayListener onConnection(FileReplay.Connection connection) {
      List<String> results = new ArrayList<>();
      byConnection.put(connection.label(), results);
      return listener(results);
    }

    @Override
    public void onEnd(FileReplay.Connection connection, Optional<CqlFrameException> failure) {
      failures.add(failure);
    }

    @Override
    public void onNote(FileReplay.Connection connection, String note) {
      notes.add(note);
    }
  }

  private static ReplayListener listener(List<String> results) {
    return new ReplayListener() {
      RowsCollector rows;

      @Override
      public RowSink sinkFor(Response response) {
        rows = new RowsCollector();
        return rows;
      }

      @Override
      public void onResult(Response response, CqlResult result) {
        results.add(response.streamId() + " " + response.query() + " " + rows.rows());
      }

      @Override
      public void onError(Response response, CqlFrameException error) {
        results.add(response.streamId() + " error " + error.reason());
      }
    };
  }

  /** What the collecting reassembler and the array replay give, by connection label. */
  private static Map<String, List<String>> collected(byte[] pcap) throws IOException {
    Map<String, List<String>> out = new TreeMap<>();
    PreparedStatements prepared = new PreparedStatements();
    for (TcpConnection c : TcpReassembler.reassemble(new ByteArrayInputStream(pcap))) {
      List<String> results = new ArrayList<>();
      String label = c.label();
      ConnectionReplay.replay(
          label,
          c.clientToServer().bytes(),
          c.serverToClient().bytes(),
          prepared,
          ParseLimits.defaults(),
          listener(results));
      out.put(label, results);
    }
    return out;
  }

  private Results replay(byte[] file) throws IOException {
    Path p = dir.resolve("capture");
    Files.write(p, file);
    Results r = new Results();
    FileReplay.Summary s = FileReplay.builder().build().replay(p, r);
    assertNull(s.damage());
    return r;
  }

  @ParameterizedTest
  @ValueSource(strings = {"a-v4", "b-v5"})
  void streamingGivesWhatTheWholeStreamsGive(String capture) throws IOException {
    byte[] pcap = Corpus.bytes(capture, "capture.pcap");
    Results streamed = replay(pcap);
    assertEquals(collected(pcap), streamed.byConnection);
    assertTrue(streamed.byConnection.values().stream().mapToInt(List::size).sum() > 5);
    streamed.failures.forEach(f -> assertEquals(Optional.empty(), f));
  }

  /**
   * Each server data segment is moved after the next three packets, past the client's
   * acknowledgment of it (a capture merged from two interfaces): every result is still there.
   */
  @ParameterizedTest
  @ValueSource(strings = {"a-v4", "b-v5"})
  void segmentsLateInTheFileStillFillTheirHoles(String capture) throws IOException {
    byte[] pcap = Corpus.bytes(capture, "capture.pcap");
    List<PcapPacket> packets = new ArrayList<>();
    try (PcapReader reader = new PcapReader(new ByteArrayInputStream(pcap))) {
      for (PcapPacket p; (p = reader.next()) != null; ) {
        packets.add(p);
      }
    }
    PacketDecoder decoder = new PacketDecoder(new java.util.LinkedHashSet<>());
    int moved = 0;
    for (int i = 0; i + 3 < packets.size(); i++) {
      TcpSegment s = decoder.decode(packets.get(i));
      if (s != null && s.payloadLength() > 0 && s.source().getPort() == 19042 && i % 2 == 0) {
        packets.add(i + 3, packets.remove(i));
        moved++;
        i += 3;
      }
    }
    assertTrue(moved > 3, "moved " + moved);
    Results reordered = replay(PcapFiles.classic(LinkType.ETHERNET, packets));
    assertEquals(collected(pcap), reordered.byConnection);
    assertEquals(List.of(), reordered.notes);
  }

  @Test
  void aPcapngCopyDigestsToTheSameNumbersAsThePcap() throws IOException {
    byte[] pcap = Corpus.bytes("a-v4", "capture.pcap");
    PcapFiles.Pcapng ng =
        new PcapFiles.Pcapng(ByteOrder.BIG_ENDIAN).iface(LinkType.ETHERNET, 0, 9, 0);
    try (PcapReader reader = new PcapReader(new ByteArrayInputStream(pcap))) {
      for (PcapPacket p; (p = reader.next()) != null; ) {
        ng.enhanced(0, p.timestampNanos(), p.data());
      }
    }
    Path a = dir.resolve("a.pcap");
    Path b = dir.resolve("a.pcapng");
    Files.write(a, pcap);
    Files.write(b, ng.toBytes());
    DigestReport fromPcap = Digest.of(a, FileReplay.builder().build(), Digest.Limits.DEFAULT);
    DigestReport fromPcapng = Digest.of(b, FileReplay.builder().build(), Digest.Limits.DEFAULT);
    assertEquals(fromPcap.statements(), fromPcapng.statements());
    assertEquals(fromPcap.opcodes(), fromPcapng.opcodes());
    assertEquals(collected(pcap), replay(ng.toBytes()).byConnection);
  }

  @Test
  void aTlsConnectionOnTheCqlPortIsNotedAndSkipped() throws IOException {
    byte[] clientHello = {0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0x00, 0x00, 0x01, 0x00};
    Conversation c =
        new Conversation().handshake().client(0, clientHello).server(0, new byte[] {0x16, 3, 3});
    Path p = dir.resolve("tls.pcap");
    Files.write(p, c.toPcap());
    Results r = new Results();
    FileReplay.Summary s = FileReplay.builder().build().replay(p, r);
    assertEquals(1, s.tcpConnections());
    assertEquals(0, s.cqlConnections());
    assertEquals(Map.of(), r.byConnection);
    assertEquals(1, r.notes.size());
  }

  /**
   * Connections on a port that is not 9042 and captured from their middle (no handshake, their
   * first packets missing) are recognised by a provable frame boundary in the server's bytes.
   */
  @Test
  void connectionsCapturedMidStreamOnAnotherPortAreFoundByTheirFrames() throws IOException {
    byte[] pcap = Corpus.bytes("a-v4", "capture.pcap");
    List<PcapPacket> packets = new ArrayList<>();
    PacketDecoder decoder = new PacketDecoder(new java.util.LinkedHashSet<>());
    try (PcapReader reader = new PcapReader(new ByteArrayInputStream(pcap))) {
      for (PcapPacket p; (p = reader.next()) != null; ) {
        TcpSegment s = decoder.decode(p);
        if (s.has(TcpSegment.SYN)) {
          continue; // the handshakes
        }
        packets.add(p);
      }
    }
    Results r = replay(PcapFiles.classic(LinkType.ETHERNET, packets.subList(12, packets.size())));
    assertEquals(2, r.byConnection.size());
    assertTrue(r.byConnection.values().stream().mapToInt(List::size).sum() > 10);
  }

  /** A capture of the server's direction only, on 9042: its results, without their queries. */
  @Test
  void aCaptureOfTheServersBytesAloneIsReplayed() throws IOException {
    byte[] s2c = Corpus.bytes("a-v4", "conn-01.s2c.bin");
    Conversation c = new Conversation().handshake();
    for (int at = 0; at < s2c.length; at += 1400) {
      c.server(at, Arrays.copyOfRange(s2c, at, Math.min(s2c.length, at + 1400)));
    }
    Results r = replay(c.toPcap());
    List<String> expected = new ArrayList<>();
    ConnectionReplay.replay(
        "x", null, s2c, new PreparedStatements(), ParseLimits.defaults(), listener(expected));
    assertEquals(List.of(expected), List.copyOf(r.byConnection.values()));
    assertTrue(expected.size() > 5);
  }

  @Test
  void aFileThatIsNeitherACaptureNorCqlIsSaidToBeNone() throws IOException {
    Path text = dir.resolve("passwd");
    Files.writeString(text, "root:x:0:0:root:/root:/bin/bash\n", StandardCharsets.US_ASCII);
    PcapFormatException e =
        assertThrows(
            PcapFormatException.class,
            () -> FileReplay.builder().build().replay(text, new Results()));
    assertEquals(PcapFormatException.Reason.NOT_A_CAPTURE, e.reason());

    Path empty = Files.createFile(dir.resolve("empty"));
    assertEquals(
        PcapFormatException.Reason.NOT_A_CAPTURE,
        assertThrows(
                PcapFormatException.class,
                () -> FileReplay.builder().build().replay(empty, new Results()))
            .reason());
  }

  @Test
  void aBlockDeclaringTwoGibibytesIsNamedWithItsOffsetAndLength() throws IOException {
    PcapFiles.Pcapng file =
        new PcapFiles.Pcapng(ByteOrder.LITTLE_ENDIAN).iface(LinkType.ETHERNET, 0, -1, 0);
    byte[] head = file.toBytes();
    ByteBuffer huge = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
    huge.putInt(0x00000BAD).putInt(0x80000000).put(new byte[56]);
    byte[] all = new byte[head.length + 64];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(huge.array(), 0, all, head.length, 64);
    Path p = dir.resolve("huge.pcapng");
    Files.write(p, all);

    Results r = new Results();
    FileReplay.Summary s = FileReplay.builder().build().replay(p, r);
    assertEquals(head.length, s.damage().offset());
    assertEquals(0x80000000L, s.damage().length());
    assertEquals(0, s.cqlConnections());
    assertEquals(1, r.notes.size());
  }

  @Test
  void rawBytesAreOneConnectionWithItsRequestsBeside() throws IOException {
    Path s2c = dir.resolve("conn-01.s2c.bin");
    Files.write(s2c, Corpus.bytes("d-v4-lz4", "conn-01.s2c.bin"));
    Files.write(dir.resolve("conn-01.c2s.bin"), Corpus.bytes("d-v4-lz4", "conn-01.c2s.bin"));
    Results r = new Results();
    FileReplay.Summary s = FileReplay.builder().build().replay(s2c, r);
    assertEquals(FileReplay.Kind.RAW, s.kind());
    List<String> expected = new ArrayList<>();
    ConnectionReplay.replay(
        "x",
        Corpus.bytes("d-v4-lz4", "conn-01.c2s.bin"),
        Corpus.bytes("d-v4-lz4", "conn-01.s2c.bin"),
        new PreparedStatements(),
        ParseLimits.defaults(),
        listener(expected));
    assertEquals(expected, r.byConnection.get("conn-01.s2c.bin"));
    assertTrue(expected.stream().anyMatch(x -> x.contains("SELECT")));
  }
}
