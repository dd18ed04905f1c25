package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command jar binds a logging provider: on its classpath, Netty logs through SLF4J, and
 * warnings and errors, a leak report included, reach stderr while info messages do not. Runs {@link
 * LoggingProbe} as {@code java -cp cqlrows.jar:test-classes} in a child process; needs no server.
 */
class CliLoggingIT {
  @TempDir Path dir;

  @Test
  void nettyWarningsAndLeakReportsReachStderrAndInfoDoesNot() throws Exception {
    Path testClasses =
        Path.of(LoggingProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path out = dir.resolve("probe.out");
    Path err = dir.resolve("probe.err");
    Process p =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Dio.netty.leakDetection.level=paranoid",
                    "-cp",
                    JarProcess.jar() + File.pathSeparator + testClasses,
                    LoggingProbe.class.getName()))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    p.getOutputStream().close();
    boolean exited = p.waitFor(LoggingProbe.MAX_MILLIS + 60_000, TimeUnit.MILLISECONDS);
    if (!exited) {
      p.destroyForcibly();
    }
    assertTrue(exited, "the probe exits");
    String stderr = Files.readString(err, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), "a leak report on stderr in time: " + stderr);
    assertEquals(
        "io.netty.util.internal.logging.Slf4JLoggerFactory",
        Files.readString(out, StandardCharsets.UTF_8).strip(),
        "Netty chose SLF4J");
    assertTrue(
        stderr.contains("WARN io.cqlrows.cli.LoggingProbe - " + LoggingProbe.WARNING), stderr);
    assertTrue(
        stderr.contains(
            "ERROR io.netty.util.ResourceLeakDetector - LEAK: "
                + "ByteBuf.release() was not called"),
        stderr);
    assertFalse(stderr.contains(LoggingProbe.INFO), stderr);
    assertFalse(stderr.contains("SLF4J"), "no word from SLF4J about its providers: " + stderr);
  }
}
