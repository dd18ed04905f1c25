package io.cqlrows.capture.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.capture.digest.Digest;
import io.cqlrows.capture.digest.DigestReport;
import io.cqlrows.capture.pcap.TcpConnection;
import io.cqlrows.capture.pcap.TcpReassembler;
import io.cqlrows.netty.ReadmeBlocks;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The streaming and digest examples of docs/replay.md, compiled from the page ({@link
 * ReadmeBlocks}) and run on the capture fixture.
 */
class StreamingExamplesTest {
  private static Path work;
  private static Class<?> stream;
  private static Class<?> digest;

  @BeforeAll
  static void compileTheExamples() throws IOException, ClassNotFoundException {
    work = Files.createTempDirectory("streaming-examples");
    stream =
        ReadmeBlocks.compile(
            ReadmeBlocks.source("docs/replay.md", "stream-pcap"), work.resolve("a"));
    digest =
        ReadmeBlocks.compile(
            ReadmeBlocks.source("docs/replay.md", "digest-pcap"), work.resolve("b"));
  }

  @AfterAll
  static void closeTheLoaders() throws IOException {
    ReadmeBlocks.close(stream);
    ReadmeBlocks.close(digest);
  }

  @Test
  void theStreamingExampleSeesEveryRowsResultOfTheFixture() throws Exception {
    List<String> notes = new ArrayList<>();
    @SuppressWarnings("unchecked")
    List<String> got =
        (List<String>)
            stream.getMethod("rowsPerQuery", Path.class, List.class).invoke(null, fixture(), notes);
    TcpConnection c = TcpReassembler.reassemble(fixture()).get(0);
    long rowsResults =
        CaptureReplay.results(c.serverToClient().bytes(), c.clientToServer().bytes()).stream()
            .filter(r -> r.result() instanceof io.cqlrows.core.RowsResult)
            .count();
    assertEquals(rowsResults, got.size());
    assertEquals(List.of(), notes);
  }

  @Test
  void theDigestExampleListsTheStatementsByTotalTime() throws Exception {
    @SuppressWarnings("unchecked")
    List<String> got = (List<String>) digest.getMethod("top", Path.class).invoke(null, fixture());
    DigestReport report =
        Digest.of(fixture(), FileReplay.builder().build(), new Digest.Limits(2_000, 2_000, 5));
    assertEquals(report.statements().size(), got.size());
    assertTrue(got.get(0).endsWith(report.statements().get(0).name()));
  }

  private static Path fixture() {
    try {
      return Path.of(
          StreamingExamplesTest.class.getResource(LiveCaptureFixtureTest.FIXTURE).toURI());
    } catch (URISyntaxException | NullPointerException e) {
      throw new AssertionError("no test resource " + LiveCaptureFixtureTest.FIXTURE, e);
    }
  }
}
