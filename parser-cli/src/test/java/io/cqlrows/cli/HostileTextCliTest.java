package io.cqlrows.cli;

import static io.cqlrows.netty.CqlTestFrames.frameBytes;
import static io.cqlrows.netty.CqlTestFrames.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.client.FakeCqlServer;
import io.cqlrows.core.sink.CanonicalJson;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.EventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Text from a capture or a server that a terminal would act on (CSI and OSC sequences, C1 controls,
 * bidi overrides, carriage returns) in query text, column names, cells and error messages: the
 * table and vertical outputs and stderr show it escaped, printable non-ASCII as it is; JSON Lines
 * and CSV carry it as they always did (JSON escapes, CSV data).
 */
class HostileTextCliTest {
  /** The QUERY of stream 1. */
  static final String QUERY = "SELECT \u001b[2J\u009b\u202e名前🦀\u2066 FROM t\r\nWHERE x = '\t'";

  static final String QUERY_SHOWN =
      "SELECT \\u001b[2J\\u009b\\u202e名前🦀\\u2066 FROM t\\r\\nWHERE x = '\\t'";

  /** A text column of stream 1's result. */
  static final String NAME = "名\u001b]0;pwned\u0007\u202e";

  static final String NAME_SHOWN = "名\\u001b]0;pwned\\u0007\\u202e";

  /** Its value. */
  static final String VALUE = "値🦀\u001b[31m\u009b1m\u202ex\u2069\r\n";

  static final String VALUE_SHOWN = "値🦀\\u001b[31m\\u009b1m\\u202ex\\u2069\\r\\n";

  /** The field of an empty UDT value, in a column of stream 1's result. */
  static final String FIELD = "f\u009b\u2067";

  /** The int column of stream 2, whose 3-byte cell cannot be decoded. */
  static final String BAD = "bad\u001b[1m\u009b\u202e";

  static final String BAD_SHOWN = "bad\\u001b[1m\\u009b\\u202e";

  private static EventLoopGroup group;
  @TempDir Path dir;

  @BeforeAll
  static void startGroup() {
    group = EventLoops.nio(1);
  }

  @AfterAll
  static void stopGroup() throws InterruptedException {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  @ParameterizedTest
  @ValueSource(strings = {"table", "vertical"})
  void textOutputsShowEveryControlEscaped(String format) throws IOException {
    // exit status 1: stream 2's response could not be decoded
    CliRun r = CliRun.of("replay", "--format", format, capture().toString());
    assertEquals(1, r.status(), r.err());
    assertEquals("", r.err());
    assertShowsNoControl(r.out());
    List<String> lines = r.lines();
    assertEquals("hostile.s2c.bin, stream 1: " + QUERY_SHOWN + ": 1 row", lines.get(0));
    assertTrue(r.out().contains(NAME_SHOWN), r.out());
    assertTrue(r.out().contains(VALUE_SHOWN), r.out());
    assertTrue(r.out().contains("{\"f\\u009b\\u2067\":null}"), "the empty UDT: " + r.out());
    assertTrue(r.out().contains("hostile.s2c.bin, stream 2: error: "), r.out());
    assertTrue(r.out().contains("column 0 '" + BAD_SHOWN + "' int"), r.out());
  }

  @Test
  void jsonLinesCarryTheExactText() throws IOException {
    CliRun r = CliRun.of("replay", "--format", "jsonl", capture().toString());
    assertEquals(1, r.status(), r.err());
    List<String> lines = r.lines();
    assertEquals(2, lines.size(), r.out());
    // JSON escapes C0 controls and DEL; C1 and bidi characters are written as they are
    assertTrue(lines.get(0).contains("\"query\":" + jsonString(QUERY)), lines.get(0));
    assertTrue(lines.get(0).contains(jsonString(NAME)), lines.get(0));
    assertTrue(lines.get(0).contains(jsonString(VALUE)), lines.get(0));
    JsonNode rows = json(lines.get(0));
    assertEquals(QUERY, rows.get("query").asText());
    assertEquals(NAME, rows.get("columns").get(0).get("name").asText());
    assertEquals(VALUE, rows.get("rows").get(0).get(0).asText());
    JsonNode error = json(lines.get(1));
    assertTrue(error.get("error").asText().contains("column 0 '" + BAD + "' int"), lines.get(1));
  }

  /** CSV is data: names as they are, cells as the canonical JSON without quotes; errors escaped. */
  @Test
  void csvCarriesTheDataAndStderrShowsTheErrorEscaped() throws IOException {
    CliRun r = CliRun.of("replay", "--format", "csv", capture().toString());
    assertEquals(1, r.status(), r.err());
    StringBuilder header = new StringBuilder();
    CsvSink.appendField(header, NAME);
    StringBuilder cell = new StringBuilder();
    CsvSink.appendField(cell, "値🦀\\u001b[31m\u009b1m\u202ex\u2069\\r\\n");
    assertTrue(r.out().startsWith(header + ",plain,udt\r\n" + cell + ",p,"), r.out());
    assertShowsNoControl(r.err());
    assertEquals(1, r.err().lines().count(), r.err());
    assertTrue(r.err().startsWith("hostile.s2c.bin, stream 2: error: "), r.err());
    assertTrue(r.err().contains("column 0 '" + BAD_SHOWN + "' int"), r.err());
  }

  /** The label of a stats block is the file's name, which a capture's sender may choose. */
  @Test
  void statsShowTheLabelEscaped() throws IOException {
    Path file = dir.resolve("a\u001b[8m\u202e.bin");
    Files.write(file, Files.readAllBytes(capture()));
    CliRun r = CliRun.of("stats", file.toString());
    assertEquals(1, r.status(), r.err());
    assertShowsNoControl(r.out());
    assertTrue(r.out().startsWith("a\\u001b[8m\\u202e.bin:\n"), r.out());
  }

  /** A server's error message reaches stderr escaped, on one line. */
  @Test
  void queryShowsAServerErrorEscaped() throws Exception {
    FakeCqlServer server = new FakeCqlServer(group, 4, Compression.NONE);
    try {
      CliRun r = query(server, "--format", "table", "FAIL " + VALUE + "cqlrows: fine");
      assertEquals(1, r.status());
      assertShowsNoControl(r.err());
      assertEquals(1, r.err().lines().count(), r.err());
      // CR/LF runs of a server message are one space; the rest is escaped
      assertTrue(
          r.err().contains("cannot run: FAIL 値🦀\\u001b[31m\\u009b1m\\u202ex\\u2069 cqlrows: fine"),
          r.err());
    } finally {
      server.close();
    }
  }

  /** The fake server answers a SELECT with its text as a cell. */
  @Test
  void queryTablesShowCellsEscapedAndJsonCarriesThemExactly() throws Exception {
    FakeCqlServer server = new FakeCqlServer(group, 4, Compression.NONE);
    try {
      String select = "SELECT \u009b\u202e🦀\u001b[1m";
      for (String format : new String[] {"table", "vertical"}) {
        CliRun r = query(server, "--format", format, select);
        assertEquals(0, r.status(), r.err());
        assertShowsNoControl(r.out());
        assertShowsNoControl(r.err());
        assertTrue(r.out().contains("SELECT \\u009b\\u202e🦀\\u001b[1m"), format + ": " + r.out());
      }
      CliRun r = query(server, "--format", "jsonl", select);
      assertEquals(0, r.status(), r.err());
      assertTrue(r.out().contains("\"query\":" + jsonString(select)), r.out());
      assertEquals(select, json(r.lines().get(0)).get("query").asText());
    } finally {
      server.close();
    }
  }

  /**
   * The command line's stderr as a terminal gets it: a message made of a capture's text has its
   * controls escaped however it is printed (here straight to the stream, as a note would be).
   */
  @Test
  void stderrOfTheCommandEscapesEveryControl() throws IOException {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    java.io.PrintStream raw = new java.io.PrintStream(err, true, StandardCharsets.UTF_8);
    java.io.PrintStream out =
        new java.io.PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    // a file that does not exist: its name is printed on stderr
    Path missing = dir.resolve("gone\u001b[2K\u009b\u202e\rcqlrows: ok");
    assertEquals(1, CqlRowsCli.run(new String[] {"replay", missing.toString()}, out, raw));
    String text = err.toString(StandardCharsets.UTF_8);
    assertShowsNoControl(text);
    assertTrue(text.contains("gone\\u001b[2K\\u009b\\u202e\\rcqlrows: ok: no such file"), text);
  }

  private static CliRun query(FakeCqlServer server, String... args) {
    String[] all = new String[args.length + 9];
    all[0] = "query";
    all[1] = "--port";
    all[2] = Integer.toString(server.port());
    all[3] = "--quiet";
    all[4] = "--protocol";
    all[5] = "4";
    all[6] = "--compression";
    all[7] = "none";
    all[8] = "--no-cqlshrc";
    System.arraycopy(args, 0, all, 9, args.length);
    return CliRun.of(all);
  }

  /**
   * A capture of one connection: stream 1 a QUERY answered by a ROWS result (a text column named
   * {@link #NAME} holding {@link #VALUE}, a plain text column, an empty UDT whose field is {@link
   * #FIELD}); stream 2 a QUERY answered by a ROWS result whose int column {@link #BAD} has a 3-byte
   * cell.
   */
  private Path capture() throws IOException {
    byte[] c2s = concat(query(1, QUERY), query(2, "SELECT bad FROM t"));
    byte[] rows =
        CqlBytes.create()
            .int32(2)
            .int32(1)
            .int32(3)
            .string("ks")
            .string("t")
            .columnSpec(NAME, 0x000D)
            .columnSpec("plain", 0x000D)
            .string("udt")
            .int16(0x0030)
            .string("ks")
            .string("u\u001b")
            .int16(1)
            .string(FIELD)
            .int16(0x000D)
            .int32(1)
            .bytes(hex(VALUE))
            .bytes(hex("p"))
            .bytes("")
            .toArray();
    byte[] bad =
        CqlBytes.create()
            .int32(2)
            .int32(1)
            .int32(1)
            .string("ks")
            .string("t")
            .columnSpec(BAD, 0x0009)
            .int32(1)
            .bytes("010203")
            .toArray();
    byte[] s2c = concat(frameBytes(0x84, 0, 1, 0x08, rows), frameBytes(0x84, 0, 2, 0x08, bad));
    Path file = dir.resolve("hostile.s2c.bin");
    Files.write(file, s2c);
    Files.write(dir.resolve("hostile.c2s.bin"), c2s);
    return file;
  }

  /** A v4 QUERY frame: the text, consistency ONE, no flags. */
  private static byte[] query(int stream, String cql) {
    byte[] text = cql.getBytes(StandardCharsets.UTF_8);
    byte[] body = CqlBytes.create().int32(text.length).raw(text).int16(1).int8(0).toArray();
    return frameBytes(0x04, 0, stream, 0x07, body);
  }

  private static String hex(String s) {
    return ByteBufUtil.hexDump(s.getBytes(StandardCharsets.UTF_8));
  }

  private static String jsonString(String s) {
    StringBuilder sb = new StringBuilder();
    CanonicalJson.appendString(sb, s);
    return sb.toString();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /**
   * No ESC or other C0 control but the line feed, no DEL or C1 control, no bidi override or
   * isolate.
   */
  private static void assertShowsNoControl(String text) {
    text.codePoints()
        .forEach(
            c -> {
              if ((c < 0x20 && c != '\n')
                  || (c >= 0x7f && c <= 0x9f)
                  || (c >= 0x202a && c <= 0x202e)
                  || (c >= 0x2066 && c <= 0x2069)) {
                fail(String.format("U+%04X in: %s", c, TerminalText.escape(text)));
              }
            });
  }
}
