package io.cqlrows.capture.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.capture.pcap.TcpConnection;
import io.cqlrows.capture.pcap.TcpReassembler;
import io.cqlrows.netty.ReadmeBlocks;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pcap example of docs/replay.md, compiled from the page ({@link ReadmeBlocks}) and run on the
 * capture fixture: the same results, with their queries, as the test API's own replay.
 */
class ReplayPcapExampleTest {
  private static Path work;
  private static Class<?> example;

  @BeforeAll
  static void compileTheExample() throws IOException, ClassNotFoundException {
    work = Files.createTempDirectory("replay-pcap");
    example = ReadmeBlocks.compile(ReadmeBlocks.source("docs/replay.md", "replay-pcap"), work);
  }

  @AfterAll
  static void closeTheLoader() throws IOException {
    ReadmeBlocks.close(example);
  }

  @Test
  void replaysEveryResultOfTheFixtureWithItsQuery() throws Exception {
    Path capture = fixture();
    Method results = example.getMethod("results", Path.class);
    @SuppressWarnings("unchecked")
    List<ReplayedResult> got = (List<ReplayedResult>) results.invoke(null, capture);
    TcpConnection c = TcpReassembler.reassemble(capture).get(0);
    List<ReplayedResult> expected =
        CaptureReplay.results(c.serverToClient().bytes(), c.clientToServer().bytes());
    assertEquals(5, got.size(), "2 QUERYs, 1 PREPARE, 2 EXECUTEs");
    for (int i = 0; i < got.size(); i++) {
      assertNull(got.get(i).error(), got.get(i).query());
      assertEquals(expected.get(i).query(), got.get(i).query());
      assertEquals(expected.get(i).rows().size(), got.get(i).rows().size());
    }
    assertTrue(got.stream().anyMatch(r -> !r.rows().isEmpty()), "some rows");
  }

  private static Path fixture() {
    try {
      return Path.of(
          ReplayPcapExampleTest.class.getResource(LiveCaptureFixtureTest.FIXTURE).toURI());
    } catch (URISyntaxException | NullPointerException e) {
      throw new AssertionError("no test resource " + LiveCaptureFixtureTest.FIXTURE, e);
    }
  }
}
