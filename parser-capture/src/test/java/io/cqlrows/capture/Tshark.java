package io.cqlrows.capture;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Wireshark's command-line dissector, which tests compare captures with when it is installed (CI
 * installs it; a test without it is skipped with its reason, not failed). Stateless.
 */
public final class Tshark {
  /** The command, found on the PATH. */
  public static final String COMMAND = "tshark";

  private Tshark() {}

  /** True if {@code tshark -v} runs and succeeds within 30 seconds. */
  public static boolean available() {
    try {
      Process p =
          new ProcessBuilder(COMMAND, "-v")
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return false;
      }
      return p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
