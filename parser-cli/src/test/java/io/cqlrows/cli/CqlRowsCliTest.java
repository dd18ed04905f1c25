package io.cqlrows.cli;

import static io.cqlrows.netty.CqlTestFrames.corpusBytes;
import static io.cqlrows.netty.CqlTestFrames.corpusLines;
import static io.cqlrows.netty.CqlTestFrames.frameBytes;
import static io.cqlrows.netty.CqlTestFrames.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CqlRowsCliTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(ints = {0, 1})
  void replaysTheCaptureAsTheDriverDecodedIt(int conn) throws IOException {
    Path file = copy(String.format("conn-%02d.s2c.bin", conn));
    CliRun r = CliRun.of("replay", "--format", "jsonl", file.toString());
    assertEquals(0, r.status(), r.err());
    assertEquals("", r.err());
    List<JsonNode> expected = corpusLines("results.jsonl", conn);
    List<String> lines = r.lines();
    assertEquals(expected.size(), lines.size());
    for (int i = 0; i < lines.size(); i++) {
      compare(expected.get(i), json(lines.get(i)));
    }
  }

  /**
   * With the client side beside the server side, every result names its query and prepared results
   * decode fully: all of them equal the driver's decoding.
   */
  @ParameterizedTest
  @ValueSource(strings = {"a-v4", "b-v5", "c-v5-lz4", "d-v4-lz4", "e-v5-paging"})
  void replaysBothSidesOfEveryCaptureAsTheDriverDecodedThem(String capture) throws IOException {
    for (String conn : new String[] {"conn-00", "conn-01"}) {
      Path s2c = dir.resolve(capture + "-" + conn + ".s2c.bin");
      Files.write(s2c, io.cqlrows.testing.Corpus.bytes(capture, conn + ".s2c.bin"));
      Files.write(
          dir.resolve(capture + "-" + conn + ".c2s.bin"),
          io.cqlrows.testing.Corpus.bytes(capture, conn + ".c2s.bin"));
      CliRun r = CliRun.of("replay", "--format", "jsonl", s2c.toString());
      assertEquals(0, r.status(), r.err());
      List<JsonNode> expected = io.cqlrows.testing.CorpusAssertions.expectedResults(capture, conn);
      List<String> lines = r.lines();
      assertEquals(expected.size(), lines.size(), capture + " " + conn);
      for (int i = 0; i < lines.size(); i++) {
        JsonNode actual = json(lines.get(i));
        io.cqlrows.testing.CorpusAssertions.assertSameResult(expected.get(i), actual);
        assertEquals(expected.get(i).get("query").asText(), actual.get("query").asText());
        assertEquals(s2c.getFileName().toString(), actual.get("connection").asText());
      }
    }
  }

  /**
   * A tcpdump capture holds both sides of both connections: every ROWS result, prepared ones and
   * the v5 Metadata_changed sequence included, equals the driver's decoding, grouped by connection
   * in start order, each line naming its connection and query.
   */
  @ParameterizedTest
  @ValueSource(strings = {"a-v4", "b-v5"})
  void replaysATcpdumpCaptureAsTheDriverDecodedIt(String capture) throws IOException {
    Path pcap = dir.resolve(capture + ".pcap");
    Files.write(pcap, io.cqlrows.testing.Corpus.bytes(capture, "capture.pcap"));
    CliRun r = CliRun.of("replay", "--format", "jsonl", pcap.toString());
    assertEquals(0, r.status(), r.err());
    assertEquals("", r.err());
    List<JsonNode> expected = new java.util.ArrayList<>();
    expected.addAll(io.cqlrows.testing.CorpusAssertions.expectedResults(capture, "conn-00"));
    expected.addAll(io.cqlrows.testing.CorpusAssertions.expectedResults(capture, "conn-01"));
    List<String> lines = r.lines();
    assertEquals(expected.size(), lines.size());
    java.util.Set<String> connections = new java.util.LinkedHashSet<>();
    for (int i = 0; i < lines.size(); i++) {
      JsonNode actual = json(lines.get(i));
      io.cqlrows.testing.CorpusAssertions.assertSameResult(expected.get(i), actual);
      assertEquals(expected.get(i).get("query").asText(), actual.get("query").asText());
      assertTrue(
          actual
              .get("connection")
              .asText()
              .matches("127\\.0\\.0\\.1:\\d+ -> 127\\.0\\.0\\.1:19042"),
          actual.get("connection").asText());
      connections.add(actual.get("connection").asText());
    }
    assertEquals(2, connections.size());
  }

  /**
   * A pcap that starts in the middle of a v5 connection (no handshake, the server's bytes from the
   * middle of a segment on): the replay says so, skips to the first provable segment and prints
   * every result from there as the driver decoded it.
   */
  @Test
  void replaysAPcapThatStartsMidConnection() throws IOException {
    byte[] s2c = io.cqlrows.testing.Corpus.bytes("b-v5", "conn-01.s2c.bin");
    int cut = 50_000;
    Path pcap = dir.resolve("mid.pcap");
    try (java.io.OutputStream out = Files.newOutputStream(pcap);
        io.cqlrows.capture.pcap.PcapWriter w =
            io.cqlrows.capture.pcap.PcapWriter.builder(out).build()) {
      w.writeServerToClient(s2c, cut, s2c.length - cut);
    }
    dropLeadingPackets(pcap, 3); // the writer's handshake: now no SYN is captured
    CliRun r = CliRun.of("replay", "--format", "jsonl", pcap.toString());
    assertEquals(0, r.status(), r.err());
    assertTrue(r.err().contains("the capture starts after the connection did"), r.err());
    assertTrue(r.err().contains("to the first provable frame boundary"), r.err());
    List<JsonNode> expected =
        io.cqlrows.testing.CorpusAssertions.expectedResults("b-v5", "conn-01");
    List<String> lines = r.lines();
    assertTrue(lines.size() > 20, lines.size() + " results after the cut");
    int skipped = expected.size() - lines.size();
    for (int i = 0; i < lines.size(); i++) {
      JsonNode want = expected.get(skipped + i);
      if (want.get("columns_from").asText().equals("response")) {
        io.cqlrows.testing.CorpusAssertions.assertSameResult(want, json(lines.get(i)));
      }
    }
  }

  /** Removes the first {@code n} records of a little-endian classic pcap file. */
  private static void dropLeadingPackets(Path pcap, int n) throws IOException {
    byte[] b = Files.readAllBytes(pcap);
    java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    assertEquals(0xa1b2c3d4, in.getInt(0), "a little-endian microsecond pcap");
    int at = 24;
    for (int i = 0; i < n; i++) {
      at += 16 + in.getInt(at + 8);
    }
    byte[] out = new byte[24 + b.length - at];
    System.arraycopy(b, 0, out, 0, 24);
    System.arraycopy(b, at, out, 24, b.length - at);
    Files.write(pcap, out);
  }

  @Test
  void reportsWhenAPcapHasNoCqlConnectionOnTheGivenPort() throws IOException {
    Path pcap = dir.resolve("a.pcap");
    Files.write(pcap, io.cqlrows.testing.Corpus.bytes("a-v4", "capture.pcap"));
    CliRun r = CliRun.of("replay", "--port", "9042", pcap.toString());
    assertEquals(1, r.status());
    assertOneErrorLine(r, "no CQL connection in 2 TCP connection(s) on port 9042");
  }

  @Test
  void skipsResultsWithoutTheSelectedColumnsInTables() throws IOException {
    CliRun r =
        CliRun.of(
            "replay",
            "--format",
            "table",
            "--columns",
            "release_version",
            copy("conn-00.s2c.bin").toString());
    assertEquals(0, r.status(), r.err());
    // SELECT cluster_name has no release_version: skipped; system.local and system.peers_v2 do
    assertEquals(
        List.of(
            "conn-00.s2c.bin, stream 0: 1 row",
            "release_version",
            "---------------",
            "5.0.6",
            "conn-00.s2c.bin, stream 1: 0 rows",
            "release_version",
            "---------------"),
        r.out().lines().toList());
  }

  @Test
  void printsSelectedColumnsOfOneStreamAsCsv() throws IOException {
    Path s2c = copy("conn-00.s2c.bin");
    CliRun r =
        CliRun.of(
            "replay",
            "--format",
            "csv",
            "--columns",
            "cluster_name,release_version",
            "--stream",
            "0",
            s2c.toString());
    assertEquals(0, r.status(), r.err());
    // stream 0 answers SELECT cluster_name (first) and SELECT * FROM system.local
    assertTrue(r.out().startsWith("cluster_name\r\ncapture\r\n\r\n"), r.out());
    assertTrue(r.out().contains("cluster_name,release_version\r\ncapture,5.0.6\r\n"), r.out());
    assertFalse(r.out().contains("peer"), "stream 1 (system.peers_v2) is not printed");
  }

  /**
   * {@code corpus.scalars} row 3 holds empty (zero-byte) values: a bigint and an int whose empty
   * value is NULL (the driver decodes null) are empty fields like NULL cells, the empty text is
   * {@code ""}.
   */
  @Test
  void emptyValuesThatAreNullAreEmptyCsvFields() throws IOException {
    CliRun r =
        CliRun.of(
            "replay",
            "--format",
            "csv",
            "--columns",
            "id,c_bigint,c_int,c_text",
            "--stream",
            "0",
            copy("conn-01.s2c.bin").toString());
    assertEquals(0, r.status(), r.err());
    assertTrue(r.out().contains("id,c_bigint,c_int,c_text\r\n"), r.out());
    assertTrue(r.out().contains("\r\n3,,,\"\"\r\n"), r.out());
    assertTrue(r.out().contains("\r\n2,,,\r\n"), "row 2: NULL cells");
  }

  @Test
  void countsRowsAndResultsOfACapture() throws IOException {
    Path s2c = copy("conn-01.s2c.bin");
    CliRun r = CliRun.of("stats", s2c.toString());
    assertEquals(0, r.status(), r.err());
    long rows = 0;
    for (JsonNode e : io.cqlrows.testing.CorpusAssertions.expectedResults("a-v4", "conn-01")) {
      rows += e.get("row_count").asLong();
    }
    assertTrue(r.out().contains("total: 1 connections, " + rows + " rows"), r.out());
    assertTrue(r.out().contains("30 rows"), r.out());
    assertTrue(r.out().contains("MB/s"), r.out());
  }

  /** One ROWS line against the driver's decoding of the same frame. */
  private static void compare(JsonNode expected, JsonNode actual) {
    String where =
        "frame " + expected.get("frame").asInt() + " (" + expected.get("query").asText() + ")";
    assertEquals(expected.get("stream"), actual.get("stream"), where);
    assertEquals(expected.get("row_count"), actual.get("row_count"), where);
    JsonNode columns = expected.get("columns");
    assertEquals(columns.size(), actual.get("columns").size(), where);
    if (expected.get("columns_from").asText().equals("prepared")) {
      comparePreparedRows(expected, actual, where);
      return;
    }
    for (int c = 0; c < columns.size(); c++) {
      assertEquals(columns.get(c).get("name"), actual.get("columns").get(c).get("name"), where);
      assertEquals(columns.get(c).get("type"), actual.get("columns").get(c).get("type"), where);
    }
    for (int r = 0; r < expected.get("rows").size(); r++) {
      JsonNode want = expected.get("rows").get(r);
      JsonNode got = actual.get("rows").get(r);
      for (int c = 0; c < columns.size(); c++) {
        if (want.get(c).has("driver_error")) {
          assertDriverErrorCell(expected, want, got, c);
        } else {
          assertEquals(
              want.get(c),
              got.get(c),
              where + " row " + r + " column " + columns.get(c).get("name").asText());
        }
      }
    }
  }

  /**
   * The driver fails on {@code vec_counter.v} (it takes counters for fixed-size elements); the
   * parser decodes the vint-prefixed elements.
   */
  private static void assertDriverErrorCell(JsonNode expected, JsonNode want, JsonNode got, int c) {
    assertEquals("vec_counter", expected.get("columns").get(c).get("table").asText());
    assertEquals("v", expected.get("columns").get(c).get("name").asText());
    assertEquals("0x08000000000000000108fffffffffffffffe", want.get(c).get("raw").asText());
    assertEquals(1, want.get(0).asInt(), "the row with id 1");
    assertEquals(json("[\"1\",\"-2\"]"), got.get(c));
  }

  /**
   * No_metadata results: without the client side the replay cannot tell which PREPARED result
   * applies, so cells are raw bytes. The first column of every prepared query is {@code id int}.
   */
  private static void comparePreparedRows(JsonNode expected, JsonNode actual, String where) {
    assertEquals("column0", actual.get("columns").get(0).get("name").asText(), where);
    assertEquals("int", expected.get("columns").get(0).get("type").asText(), where);
    for (int r = 0; r < expected.get("rows").size(); r++) {
      int id = expected.get("rows").get(r).get(0).asInt();
      assertEquals(String.format("0x%08x", id), actual.get("rows").get(r).get(0).asText(), where);
    }
  }

  @Test
  void printsTablesWithStreamTitlesAndValues() throws IOException {
    CliRun r = CliRun.of("replay", "--format", "table", copy("conn-01.s2c.bin").toString());
    assertEquals(0, r.status(), r.err());
    assertTrue(
        r.out()
            .startsWith("conn-01.s2c.bin, stream 0: 1 row\ncluster_name\n------------\ncapture\n"),
        r.out());
    assertTrue(r.out().contains("conn-01.s2c.bin, stream 0: 200 rows\n"), "vec1536");
    assertTrue(r.out().contains("9223372036854775807"), "counters");
    assertTrue(r.out().contains(",… (1536)]"), "abbreviated vector<float, 1536>");
  }

  @Test
  void stopsAfterTheLimit() throws IOException {
    CliRun r = CliRun.of("replay", "--limit", "2", copy("conn-01.s2c.bin").toString());
    assertEquals(0, r.status(), r.err());
    assertEquals(2, r.lines().size());
  }

  @Test
  void reportsMissingFileOnOneLine() {
    CliRun r = CliRun.of("replay", dir.resolve("nope.bin").toString());
    assertEquals(1, r.status());
    assertOneErrorLine(r, "no such file");
  }

  @Test
  void reportsCaptureEndingInsideAFrame() throws IOException {
    byte[] capture = corpusBytes("conn-01.s2c.bin");
    // frame 24 (the traced tuples result) starts at 1385206; cut it after 100 bytes
    Path file = dir.resolve("cut.bin");
    Files.write(file, Arrays.copyOf(capture, 1_385_206 + 100));
    CliRun r = CliRun.of("replay", file.toString());
    assertNotEquals(0, r.status());
    assertOneErrorLine(r, "input ends inside a frame");
    assertTrue(r.err().contains("offset 1385206"), r.err());
    assertEquals(23, r.lines().size(), "the results before the cut are printed");
  }

  @Test
  void reportsGarbageOnOneLine() throws IOException {
    Path file = dir.resolve("garbage.bin");
    Files.writeString(file, "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n");
    CliRun r = CliRun.of("replay", file.toString());
    assertEquals(1, r.status());
    assertOneErrorLine(r, "not a pcap/pcapng file and not a CQL byte stream");
    assertEquals("", r.out());
  }

  @Test
  void reportsCompressedFrameOnOneLine() throws IOException {
    Path file = dir.resolve("lz4.bin");
    // a compressed READY whose body is neither LZ4 (4 GiB from 1 byte) nor Snappy (2^35 - 1
    // bytes from 5)
    byte[] body = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f};
    Files.write(file, frameBytes(0x84, 0x01, 0, 0x02, body));
    CliRun r = CliRun.of("replay", file.toString());
    assertEquals(1, r.status());
    assertOneErrorLine(r, "neither LZ4 nor Snappy (frame header at offset 0)");
  }

  /** A response that cannot be decoded is printed as an error and makes the status 1. */
  @Test
  void printsFrameLocalErrorAsJsonAndGoesOn() throws IOException {
    // ROWS, one int column, one row whose cell is 3 bytes long; then a good ROWS
    byte[] rows =
        ByteBufUtil.decodeHexDump(
            "00000002"
                + "00000001"
                + "00000001"
                + "00026b73"
                + "000174"
                + "000178"
                + "0009"
                + "00000001"
                + "00000003"
                + "010203");
    byte[] good =
        ByteBufUtil.decodeHexDump(
            "00000002"
                + "00000001"
                + "00000001"
                + "00026b73"
                + "000174"
                + "000178"
                + "0009"
                + "00000001"
                + "00000004"
                + "01020304");
    Path file = dir.resolve("bad-cell.bin");
    Files.write(
        file, concat(frameBytes(0x84, 0, 7, 0x08, rows), frameBytes(0x84, 0, 8, 0x08, good)));
    CliRun r = CliRun.of("replay", file.toString());
    assertEquals(1, r.status(), r.err());
    assertEquals("", r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(2, lines.size(), r.out());
    JsonNode line = json(lines.get(0));
    assertEquals(7, line.get("stream").asInt());
    assertTrue(line.get("error").asText().contains("row 0, column 0 'x' int"), r.out());
    assertEquals(16909060, json(lines.get(1)).get("rows").get(0).get(0).asInt(), "goes on");

    CliRun other = CliRun.of("replay", "--stream", "8", file.toString());
    assertEquals(0, other.status(), "only what is printed counts: " + other.out());
    CliRun stats = CliRun.of("stats", file.toString());
    assertEquals(1, stats.status(), stats.out());
    assertTrue(stats.out().contains("(1 undecodable)"), stats.out());
  }

  /**
   * A header declaring 2 GiB ends the connection: the result before it is printed, the valid frames
   * after it are not (nothing says where they start), one line on stderr, status 1.
   */
  @Test
  void reportsALengthOverTheLimitOnOneLineAndReadsNothingAfterIt() throws IOException {
    byte[] voidResult = frameBytes(0x84, 0, 1, 0x08, ByteBufUtil.decodeHexDump("00000001"));
    byte[] rows =
        frameBytes(
            0x84,
            0,
            2,
            0x08,
            ByteBufUtil.decodeHexDump(
                "00000002"
                    + "00000001"
                    + "00000001"
                    + "00026b73"
                    + "000174"
                    + "000178"
                    + "0009"
                    + "00000001"
                    + "00000004"
                    + "01020304"));
    byte[] liar = ByteBufUtil.decodeHexDump("84" + "00" + "0003" + "08" + "7fffffff");
    Path file = dir.resolve("liar.bin");
    Files.write(file, concat(concat(concat(rows, liar), concat(rows, voidResult)), rows));
    CliRun r = CliRun.of("replay", file.toString());
    assertEquals(1, r.status());
    assertOneErrorLine(r, "stream 3: body length: 2147483647 (expected: <= 268435456");
    assertTrue(r.err().contains("(frame header at offset " + rows.length + ")"), r.err());
    assertEquals(1, r.out().lines().count(), "only the result before it: " + r.out());
  }

  /** A text cell that is not UTF-8: an error by default, U+FFFD with --lenient-text. */
  @Test
  void lenientTextReplacesMalformedUtf8() throws IOException {
    // ROWS, one varchar column 't', one row: "a", 0xff, "b"
    byte[] rows =
        ByteBufUtil.decodeHexDump(
            "00000002"
                + "00000001"
                + "00000001"
                + "00026b73"
                + "000174"
                + "000174"
                + "000d"
                + "00000001"
                + "00000003"
                + "61ff62");
    Path file = dir.resolve("bad-text.bin");
    Files.write(file, frameBytes(0x84, 0, 3, 0x08, rows));

    CliRun strict = CliRun.of("replay", file.toString());
    assertEquals(1, strict.status(), "a response could not be decoded: " + strict.err());
    assertTrue(
        json(strict.out()).get("error").asText().contains("column 0 't' text"), strict.out());

    CliRun lenient = CliRun.of("replay", "--lenient-text", file.toString());
    assertEquals(0, lenient.status(), lenient.err());
    assertEquals("a\uFFFDb", json(lenient.out()).get("rows").get(0).get(0).asText());
  }

  @Test
  void printsUsageForHelp() {
    CliRun r = CliRun.of("--help");
    assertEquals(0, r.status());
    assertTrue(r.out().startsWith("usage: cqlrows COMMAND"), r.out());
    for (String command : new String[] {"replay", "stats"}) {
      CliRun c = CliRun.of(command, "--help");
      assertEquals(0, c.status());
      assertTrue(c.out().startsWith("usage: cqlrows " + command), c.out());
    }
  }

  @Test
  void rejectsBadUsageWithStatusTwo() {
    for (String[] args :
        new String[][] {
          {},
          {"play", "x"},
          {"replay"},
          {"replay", "--format", "xml", "f"},
          {"replay", "--limit", "-1", "f"},
          {"replay", "--bogus", "f"},
          {"replay", "--format", "arrow", "f"},
          {"replay", "--output", "d", "f"},
          {"replay", "--format", "arrow", "--output", "one.arrow", "f"},
          {"stats", "--format", "arrow", "--output", "d", "f"}
        }) {
      CliRun r = CliRun.of(args);
      assertEquals(2, r.status(), Arrays.toString(args));
      // the main usage, or the command's for a mistake in its options
      assertTrue(r.err().contains("usage: cqlrows "), r.err());
    }
  }

  /** Offset of segment {@code n} of conn-01's server-to-client file in a v5 capture. */
  private static int segmentOffset(String capture, int n) {
    for (com.fasterxml.jackson.databind.JsonNode s :
        io.cqlrows.testing.Corpus.jsonLines(capture, "segments.jsonl")) {
      if (s.get("conn").asInt() == 1
          && s.get("dir").asText().equals("s2c")
          && s.get("segment").asInt() == n) {
        return s.get("file_offset").asInt();
      }
    }
    throw new AssertionError("no segment " + n);
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({
    "b-v5, 1, header CRC24 mismatch, segment header",
    "b-v5, 9, payload CRC32 mismatch, segment",
    "c-v5-lz4, 9, payload CRC32 mismatch, segment",
  })
  void reportsACorruptSegmentOnOneLine(
      String capture, int flipAt, String expected, String structure) throws IOException {
    byte[] bytes = io.cqlrows.testing.Corpus.bytes(capture, "conn-01.s2c.bin");
    int at = segmentOffset(capture, 3);
    bytes[at + flipAt] ^= 0x01;
    Path file = dir.resolve(capture + "-corrupt.bin");
    Files.write(file, bytes);
    CliRun r = CliRun.of("replay", "--format", "jsonl", file.toString());
    assertEquals(1, r.status());
    assertOneErrorLine(r, expected);
    assertTrue(r.err().contains("(" + structure + " at offset " + at + ")"), r.err());
  }

  @Test
  void reportsACaptureCutInsideASegmentOnOneLine() throws IOException {
    byte[] bytes = io.cqlrows.testing.Corpus.bytes("c-v5-lz4", "conn-01.s2c.bin");
    int at = segmentOffset("c-v5-lz4", 5);
    Path file = dir.resolve("cut-segment.bin");
    Files.write(file, Arrays.copyOf(bytes, at + 20));
    CliRun r = CliRun.of("replay", "--format", "jsonl", file.toString());
    assertEquals(1, r.status());
    assertOneErrorLine(r, "input ends inside a segment");
  }

  @Test
  void reportsALyingLz4LengthOnOneLine() throws IOException {
    byte[] bytes = io.cqlrows.testing.Corpus.bytes("d-v4-lz4", "conn-01.s2c.bin");
    // the body of the 6th frame starts with its declared uncompressed length: add 3
    int body = 0;
    for (int i = 0; i < 5; i++) {
      body += 9 + java.nio.ByteBuffer.wrap(bytes, body + 5, 4).getInt();
    }
    int declared = java.nio.ByteBuffer.wrap(bytes, body + 9, 4).getInt();
    java.nio.ByteBuffer.wrap(bytes, body + 9, 4).putInt(declared + 3);
    Path file = dir.resolve("lz4-lie.bin");
    Files.write(file, bytes);
    CliRun r = CliRun.of("replay", "--format", "jsonl", file.toString());
    assertEquals(1, r.status());
    assertOneErrorLine(r, "(expected: " + (declared + 3) + " as declared)");
    assertTrue(r.err().contains("frame header at offset " + body), r.err());
  }

  private static void assertOneErrorLine(CliRun r, String expected) {
    assertTrue(r.err().startsWith("cqlrows: "), r.err());
    assertTrue(r.err().contains(expected), r.err());
    assertEquals(1, r.err().lines().count(), r.err());
    assertFalse(r.err().contains("\tat "), "no stack trace");
  }

  private Path copy(String resource) throws IOException {
    Path file = dir.resolve(resource);
    Files.write(file, corpusBytes(resource));
    return file;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
