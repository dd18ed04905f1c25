package io.cqlrows.client.live;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The classpath of the Cassandra server of the live tests: {@code cassandra-all} 5.0.6 and its
 * dependencies. A Maven subprocess ({@code mvn} from the PATH) runs {@code
 * dependency:build-classpath} on the standalone pom {@code src/test/cassandra/pom.xml}, which is
 * not a module of the build, so none of these jars (Netty 4.1 among them) reaches the test
 * classpath. The result is cached in {@code target/cassandra-classpath.txt} and reused while every
 * jar it names exists.
 *
 * <p>Stateless; the subprocess is owned by {@link #resolve} and never outlives it. Callers must not
 * run it concurrently for the same build folder ({@link CassandraServer#get()} is synchronized).
 */
final class CassandraClasspath {

  private static final long TIMEOUT_MINUTES = 20;

  private CassandraClasspath() {}

  /**
   * Returns the jars of the Cassandra server, resolving them first if the cache in {@code buildDir}
   * is missing or stale.
   *
   * @param pom the standalone pom naming {@code cassandra-all}
   * @param buildDir the module's {@code target} folder, for the cache and the Maven log
   */
  static List<Path> resolve(Path pom, Path buildDir) throws IOException, InterruptedException {
    Path cache = buildDir.resolve("cassandra-classpath.txt");
    if (Files.isRegularFile(cache)) {
      List<Path> cached = read(cache);
      if (!cached.isEmpty() && cached.stream().allMatch(Files::isRegularFile)) {
        return cached;
      }
    }
    Files.createDirectories(buildDir);
    Path partial = buildDir.resolve("cassandra-classpath.txt.partial");
    Path log = buildDir.resolve("cassandra-classpath.log");
    Files.deleteIfExists(partial);
    List<String> command =
        new ArrayList<>(
            List.of(
                maven().toString(),
                "-q",
                "-B",
                "-f",
                pom.toString(),
                "dependency:build-classpath",
                "-Dmdep.outputFile=" + partial));
    String repository = System.getProperty("maven.repo.local", "");
    if (!repository.isBlank()) {
      command.add("-Dmaven.repo.local=" + repository);
    }
    Process mvn =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      mvn.getOutputStream().close();
      if (!mvn.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        throw new IllegalStateException(
            "Resolving the Cassandra classpath took more than "
                + TIMEOUT_MINUTES
                + " minutes: "
                + String.join(" ", command)
                + "\n"
                + LogTail.of(log, 40));
      }
    } finally {
      mvn.destroyForcibly();
    }
    if (mvn.exitValue() != 0 || !Files.isRegularFile(partial)) {
      throw new IllegalStateException(
          "Resolving the Cassandra classpath failed (exit status "
              + mvn.exitValue()
              + "): "
              + String.join(" ", command)
              + "\n"
              + LogTail.of(log, 40));
    }
    Files.move(partial, cache, StandardCopyOption.REPLACE_EXISTING);
    return read(cache);
  }

  private static List<Path> read(Path file) throws IOException {
    List<Path> jars = new ArrayList<>();
    for (String entry :
        Files.readString(file, StandardCharsets.UTF_8).strip().split(File.pathSeparator, -1)) {
      if (!entry.isBlank()) {
        jars.add(Path.of(entry.strip()));
      }
    }
    return jars;
  }

  /** {@code mvn} (or {@code mvn.cmd} on Windows) from the PATH. */
  private static Path maven() {
    String path = System.getenv().getOrDefault("PATH", "");
    boolean windows = System.getProperty("os.name", "").startsWith("Windows");
    for (String dir : path.split(File.pathSeparator, -1)) {
      if (dir.isEmpty()) {
        continue;
      }
      for (String name : windows ? List.of("mvn.cmd", "mvn") : List.of("mvn")) {
        Path candidate = Path.of(dir, name);
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return candidate;
        }
      }
    }
    throw new IllegalStateException(
        "No mvn on the PATH ("
            + path
            + "); it is needed to resolve "
            + "the Cassandra server of the live tests. Or run them against a server of your own: "
            + "-Dcqlrows.cassandra.host=HOST -Dcqlrows.cassandra.port=PORT");
  }
}
