package example;

import io.cqlrows.core.RowsResult;
import io.cqlrows.capture.replay.CaptureReplay;
import io.cqlrows.capture.replay.ReplayedResult;
import io.netty.util.Version;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Replays the server side of a capture and prints its ROWS results and Netty's version. */
public final class Replay {
  public static void main(String[] args) throws Exception {
    List<ReplayedResult> results = CaptureReplay.results(
        Files.readAllBytes(Path.of(args[0])), Files.readAllBytes(Path.of(args[1])));
    long rows = 0;
    for (ReplayedResult r : results) {
      if (r.failed()) {
        throw new AssertionError("stream " + r.streamId() + ": " + r.error());
      }
      if (r.result() instanceof RowsResult) {
        rows += r.rows().size();
      }
    }
    String netty = Version.identify().get("netty-transport").artifactVersion();
    System.out.println(results.size() + " results, " + rows + " rows, netty " + netty);
    if (!netty.startsWith("4.1.")) {
      throw new AssertionError("ran on Netty " + netty);
    }
  }
}
