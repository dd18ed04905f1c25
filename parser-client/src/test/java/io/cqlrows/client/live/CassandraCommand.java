package io.cqlrows.client.live;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The data folder and the command line of one Cassandra 5.0.6 server: writes {@code cassandra.yaml}
 * (from the template in {@code io/cqlrows/cassandra/}, with free ports) and {@code logback.xml}
 * into the folder, and builds the {@code java} command that runs {@code CassandraDaemon} in a child
 * JVM of the same JDK, with the JVM options of {@code jvm17-server.options} and jamm as agent.
 * Everything is on 127.0.0.1. The template's authenticator is {@value #ALLOW_ALL}; {@link
 * #prepare(Path, Ports, List, String)} can set another, e.g. {@value #PASSWORD}, and {@link
 * #prepare(Path, Ports, List, String, String)} append settings the template lacks (the TLS servers'
 * {@code client_encryption_options}).
 *
 * <p>Stateless apart from the folder it writes; starts nothing. Safe from any thread.
 */
final class CassandraCommand {

  static final String HOST = "127.0.0.1";
  static final String MAIN_CLASS = "org.apache.cassandra.service.CassandraDaemon";

  /** The template's authenticator: every connection is accepted without credentials. */
  static final String ALLOW_ALL = "AllowAllAuthenticator";

  /** SASL PLAIN against {@code system_auth.roles}; the superuser {@code cassandra/cassandra}. */
  static final String PASSWORD = "PasswordAuthenticator";

  private static final String RESOURCES = "/io/cqlrows/cassandra/";

  /** The ports the server listens on; picked free, so unknown to anyone else. */
  record Ports(int nativePort, int storagePort, int sslStoragePort) {

    /**
     * Three distinct ports that were free on 127.0.0.1 a moment ago (each bound with {@code
     * ServerSocket(0)} while the others were picked, then released). Another process may still take
     * one before Cassandra binds it; the start then fails with the log tail.
     */
    static Ports free() throws IOException {
      InetAddress loopback = InetAddress.getByName(HOST);
      try (ServerSocket a = new ServerSocket(0, 1, loopback);
          ServerSocket b = new ServerSocket(0, 1, loopback);
          ServerSocket c = new ServerSocket(0, 1, loopback)) {
        return new Ports(a.getLocalPort(), b.getLocalPort(), c.getLocalPort());
      }
    }
  }

  private CassandraCommand() {}

  /**
   * Writes the configuration of a server into {@code dir} (created if needed, with {@code logs/})
   * and returns its command line, which is also saved as {@code command.txt}.
   *
   * @param classpath the jars of {@code cassandra-all} and its dependencies, jamm among them
   */
  static List<String> prepare(Path dir, Ports ports, List<Path> classpath) throws IOException {
    return prepare(dir, ports, classpath, ALLOW_ALL);
  }

  /**
   * As {@link #prepare(Path, Ports, List)}, with {@code authenticator} in place of the template's
   * {@value #ALLOW_ALL}.
   *
   * @param authenticator the {@code authenticator:} of cassandra.yaml, e.g. {@value #PASSWORD}
   */
  static List<String> prepare(Path dir, Ports ports, List<Path> classpath, String authenticator)
      throws IOException {
    return prepare(dir, ports, classpath, authenticator, "");
  }

  /**
   * As {@link #prepare(Path, Ports, List, String)}, with {@code extraYaml} appended to
   * cassandra.yaml: settings the template does not have, e.g. a {@code client_encryption_options:}
   * block.
   *
   * @param extraYaml top-level YAML entries, each ending with a newline; empty for none
   */
  static List<String> prepare(
      Path dir, Ports ports, List<Path> classpath, String authenticator, String extraYaml)
      throws IOException {
    Files.createDirectories(dir.resolve("logs"));
    String template = resource("cassandra.yaml.template");
    String allowAll = "authenticator: " + ALLOW_ALL + "\n";
    if (!template.contains(allowAll)) {
      throw new IllegalStateException(
          "No '" + allowAll.strip() + "' line in cassandra.yaml.template");
    }
    String yaml =
        template
                .replace(allowAll, "authenticator: " + authenticator + "\n")
                .replace("@BASE@", dir.toString())
                .replace("@NATIVE_PORT@", Integer.toString(ports.nativePort()))
                .replace("@STORAGE_PORT@", Integer.toString(ports.storagePort()))
                .replace("@SSL_STORAGE_PORT@", Integer.toString(ports.sslStoragePort()))
            + (extraYaml.isEmpty() || template.endsWith("\n") ? "" : "\n")
            + extraYaml;
    Files.writeString(dir.resolve("cassandra.yaml"), yaml, StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("logback.xml"), resource("logback.xml"), StandardCharsets.UTF_8);

    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    resource("jvm17-server.options")
        .lines()
        .map(String::strip)
        .filter(line -> !line.isEmpty() && !line.startsWith("#"))
        .forEach(command::add);
    // 512 MiB of direct memory: a 64 MiB v5 response is sliced into ~520 segments whose direct
    // buffers the server allocates all at once (Flusher.flushLargeMessage); with 256 MiB the
    // second such page in a row failed with "Cannot reserve 131601 bytes of direct buffer
    // memory" in FrameEncoderLZ4, and the server wrote an ERROR into the half-sent message.
    command.addAll(List.of("-Xms768m", "-Xmx768m", "-Xmn128m", "-XX:MaxDirectMemorySize=512m"));
    command.add("-javaagent:" + jamm(classpath));
    command.add("-Dcassandra.config=" + dir.resolve("cassandra.yaml").toUri());
    command.add("-Dlogback.configurationFile=" + dir.resolve("logback.xml").toUri());
    command.add("-Dcassandra.logdir=" + dir.resolve("logs"));
    command.add("-Dcassandra.storagedir=" + dir);
    command.add("-Dcassandra-foreground=yes");
    command.add("-Dcassandra.skip_wait_for_gossip_to_settle=0");
    command.add("-Dcassandra.ring_delay_ms=1000");
    command.add("-Dcassandra.superuser_setup_delay_ms=0");
    command.add("-Dcassandra.available_processors=2");
    // Names the test JVM that owns this server, for people looking at `ps`.
    command.add("-Dcqlrows.cassandra.owner=" + ProcessHandle.current().pid());
    command.add("-cp");
    command.add(
        classpath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator)));
    command.add(MAIN_CLASS);
    Files.write(dir.resolve("command.txt"), command, StandardCharsets.UTF_8);
    return command;
  }

  private static Path jamm(List<Path> classpath) {
    return classpath.stream()
        .filter(
            jar -> {
              String name = jar.getFileName().toString();
              return name.startsWith("jamm-") && name.endsWith(".jar");
            })
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalStateException("No jamm-*.jar on the Cassandra classpath " + classpath));
  }

  private static String resource(String name) {
    try (InputStream in = CassandraCommand.class.getResourceAsStream(RESOURCES + name)) {
      if (in == null) {
        throw new IllegalStateException("Missing test resource " + RESOURCES + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
