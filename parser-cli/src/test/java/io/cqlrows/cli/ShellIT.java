package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.client.FakeCqlServer;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.frame.Compression;
import io.netty.channel.EventLoopGroup;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The prompt of the command jar on a pseudo-terminal, against the fake server (which answers {@code
 * SELECT ...} with a row of the statement's text and never answers {@code NEVER}): multi-line
 * statements, history kept across sessions, EXPAND, Ctrl-C at the prompt and in flight, Ctrl-D. The
 * live tests drive the same prompt against Cassandra.
 */
class ShellIT {
  private static EventLoopGroup group;
  private static FakeCqlServer server;
  @TempDir Path dir;

  @BeforeAll
  static void start() throws Exception {
    group = EventLoops.nio(1);
    server = new FakeCqlServer(group, 4, Compression.NONE);
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  private PtySession session() {
    return new PtySession(
        dir,
        List.of(
            "query",
            "--port",
            Integer.toString(server.port()),
            "--protocol",
            "4",
            "--compression",
            "none",
            "--timeout",
            "20"),
        Map.of());
  }

  @Test
  void aSessionAtThePrompt() throws Exception {
    PtySession.Result r =
        session()
            .expect("cqlrows> ")
            // a statement over two lines: the prompt says it goes on
            .line("SELECT")
            .expect("\\.\\.\\.> ")
            .line("  first;")
            .expect("\\d+ +SELECT\\\\n  first")
            .expect("cqlrows> ")
            // Ctrl-C at the prompt drops what is typed
            .send("SELECT dropped")
            .send(PtySession.CTRL_C)
            .expect("cqlrows> ")
            // vertical blocks
            .line("EXPAND ON")
            .expect("Now expanded output is enabled")
            .line("SELECT second;")
            .expect("-\\[ RECORD 1 \\]")
            .expect("query +\\| SELECT second")
            .line("expand off;")
            .expect("Disabled expanded output")
            // Ctrl-C while a statement runs cancels it; the session goes on
            .line("NEVER;")
            .sleep(1)
            .send(PtySession.CTRL_C)
            .expect("cqlrows: cancelled", 20)
            .expect("cqlrows> ")
            .line("SELECT third;")
            .expect("\\d+ +SELECT third")
            .expect("cqlrows> ")
            // the Up arrow brings the last line back
            .send(PtySession.UP)
            .send("\r")
            .expect("\\d+ +SELECT third")
            .expect("cqlrows> ")
            .send(PtySession.CTRL_D)
            .run();
    assertTrue(r.passed(), r.problem() + "\n" + r.transcript());
    assertTrue(r.transcript().endsWith("[exit 0]\n"), r.transcript());
    assertTrue(!r.transcript().contains("dropped\r\n0"), "the dropped line never ran");
    assertTrue(
        server.queries().stream().noneMatch(q -> q.contains("dropped")), "nothing dropped ran");

    Path history = dir.resolve(".cassandra/cqlrows_history");
    String kept = Files.readString(history, StandardCharsets.UTF_8);
    assertTrue(kept.contains("SELECT third;"), kept);
    assertTrue(kept.contains("EXPAND ON"), kept);

    // a new session finds the last statement in the history
    PtySession.Result again =
        session()
            .expect("cqlrows> ")
            .send(PtySession.UP)
            .send("\r")
            .expect("\\d+ +SELECT third")
            .line("exit")
            .run();
    assertTrue(again.passed(), again.problem() + "\n" + again.transcript());
    assertTrue(again.transcript().endsWith("[exit 0]\n"), again.transcript());
  }

  @Test
  void pagingConsistencyAndSourceCommands() throws Exception {
    Path file = dir.resolve("statements.cql");
    Files.writeString(
        file, "SELECT one;\n-- a comment; not a statement\nSELECT\n two;\nSELECT three");
    PtySession.Result r =
        session()
            .expect("cqlrows> ")
            .line("CONSISTENCY")
            .expect("Current consistency level is LOCAL_ONE")
            .line("CONSISTENCY quorum")
            .expect("Consistency level set to QUORUM")
            .line("PAGING 7")
            .expect("Page size: 7")
            .line("PAGING OFF")
            .expect("Disabled query paging")
            .line("SOURCE '" + file + "'")
            .expect("\\d+ +SELECT one")
            .expect("\\d+ +SELECT\\\\n two")
            .expect("\\d+ +SELECT three")
            .expect("cqlrows> ")
            .line("PAGING maybe")
            .expect("expected ON, OFF or a page size")
            .line("QUIT;")
            .run();
    assertTrue(r.passed(), r.problem() + "\n" + r.transcript());
    assertTrue(r.transcript().endsWith("[exit 0]\n"), r.transcript());
    assertEquals(
        List.of("SELECT one", "SELECT\n two", "SELECT three"),
        server.queries().stream()
            .filter(q -> q.contains("one") || q.contains("two") || q.contains("three"))
            .toList());
  }
}
