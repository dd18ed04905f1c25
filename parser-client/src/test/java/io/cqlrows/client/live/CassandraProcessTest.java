package io.cqlrows.client.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The failure paths of {@link CassandraProcess}, with small child JVMs instead of Cassandra: a
 * start that fails must throw with the end of the logs (so the live tests fail, never skip), and
 * leave no process behind.
 */
class CassandraProcessTest {

  /** A child that never becomes ready. */
  static final class Sleeper {
    public static void main(String[] args) throws InterruptedException {
      System.out.println("sleeping");
      Thread.sleep(120_000);
    }
  }

  @TempDir Path dir;

  @Test
  void aProcessThatExitsFailsWithTheTailsOfItsLogs() throws IOException {
    Files.createDirectories(dir.resolve("logs"));
    Files.writeString(dir.resolve("logs/system.log"), "INFO one\nERROR the reason it died\n");
    CassandraProcess process =
        CassandraProcess.start(
            List.of(java(), "-cp", dir.toString(), "no.such.Main"), dir, "127.0.0.1", 1);

    CassandraProcess.NotReady e =
        assertThrows(
            CassandraProcess.NotReady.class, () -> process.awaitReady(Duration.ofSeconds(60)));

    assertTrue(e.exited());
    assertTrue(e.logs().contains("ERROR the reason it died"), e.logs());
    assertTrue(e.logs().contains("no.such.Main"), e.logs()); // from stderr.log
    assertEquals(1, process.exitStatus());
  }

  @Test
  void aProcessThatIsNotReadyInTimeIsKilled() throws IOException {
    CassandraProcess process =
        CassandraProcess.start(
            List.of(java(), "-cp", testClasses(), Sleeper.class.getName()), dir, "127.0.0.1", 1);

    CassandraProcess.NotReady e =
        assertThrows(
            CassandraProcess.NotReady.class, () -> process.awaitReady(Duration.ofSeconds(1)));

    assertFalse(e.exited(), "timed out, then killed");
    assertTrue(e.logs().contains("logs/system.log: no such file"), e.logs());
    assertTrue(process.exitStatus() != -1, "still running: pid " + process.pid());
    assertEquals(Duration.ZERO, process.stop());
  }

  @Test
  void stopEndsAProcessWithSigterm() throws IOException {
    CassandraProcess process =
        CassandraProcess.start(
            List.of(java(), "-cp", testClasses(), Sleeper.class.getName()), dir, "127.0.0.1", 1);

    Duration took = process.stop();

    assertNotEquals(-1, process.exitStatus(), "still running: pid " + process.pid());
    assertTrue(took.compareTo(Duration.ofSeconds(30)) < 0, took.toString());
  }

  /** The folder this test was loaded from, which holds {@link Sleeper}. */
  private static String testClasses() {
    try {
      return Path.of(Sleeper.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
