package io.cqlrows.cli;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** Whether the tests can run python3 with pyarrow and numpy, as {@code .ci/run} installs them. */
final class Pyarrow {
  private Pyarrow() {}

  /**
   * Null when python3 imports pyarrow and numpy; else why not. When {@code CQLROWS_REQUIRE_PYARROW}
   * is set (CI sets it), a missing pyarrow fails the test instead of skipping it.
   */
  static String missing() throws Exception {
    String missing;
    try {
      Process p =
          new ProcessBuilder("python3", "-c", "import pyarrow, numpy")
              .redirectErrorStream(true)
              .start();
      boolean done = p.waitFor(60, TimeUnit.SECONDS);
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      missing =
          done && p.exitValue() == 0
              ? null
              : "python3 cannot import pyarrow and numpy: " + out.strip();
    } catch (java.io.IOException e) {
      missing = "no python3: " + e.getMessage();
    }
    if (missing != null && System.getenv("CQLROWS_REQUIRE_PYARROW") != null) {
      throw new AssertionError("CQLROWS_REQUIRE_PYARROW is set, but " + missing);
    }
    return missing;
  }
}
