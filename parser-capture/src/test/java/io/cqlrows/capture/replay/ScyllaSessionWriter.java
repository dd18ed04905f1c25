package io.cqlrows.capture.replay;

import io.cqlrows.netty.ScyllaSession;
import io.cqlrows.netty.frame.Compression;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Writes the committed streams of {@link ScyllaSession} that {@link ScyllaSessionFixtureTest}
 * checks. Not run by default (its name matches no Surefire include, and it needs a property):
 *
 * <pre>
 * mvn -o -pl parser-core,parser-netty test -Dtest=ScyllaSessionWriter \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dcqlrows.writeScyllaSession=true
 * </pre>
 */
class ScyllaSessionWriter {
  @Test
  @EnabledIfSystemProperty(named = "cqlrows.writeScyllaSession", matches = "true")
  void writeTheStreams() throws IOException {
    Path dir =
        Path.of(System.getProperty("basedir", "."))
            .resolve("src/test/resources/io/cqlrows/captures");
    Files.createDirectories(dir);
    for (Compression c : Compression.values()) {
      ScyllaSession.Bytes session = ScyllaSession.write(c);
      String name = ScyllaSessionFixtureTest.name(c);
      Files.write(dir.resolve(name + ".s2c.bin"), session.serverToClient());
      Files.write(dir.resolve(name + ".c2s.bin"), session.clientToServer());
    }
  }
}
