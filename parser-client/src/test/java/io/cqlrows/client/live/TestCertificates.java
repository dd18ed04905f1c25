package io.cqlrows.client.live;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Test certificates, made once per JVM with the JDK's {@code keytool} (run as a process) into a
 * folder of the module's {@code target/} ({@code target/test-certificates-<timestamp>/}, left
 * there): nothing is committed, nothing is downloaded, no library beyond the JDK is needed.
 *
 * <p>What is made (EC P-256 keys, SHA256withECDSA, DN {@code CN=<name>, O=cqlrows test}):
 *
 * <ul>
 *   <li>{@link #ca()}: a self-signed CA (basicConstraints CA, keyCertSign), valid 365 days; {@link
 *       #wrongCa()}: a second CA that signed nothing the others trust;
 *   <li>{@link #server()}: signed by the CA, subjectAltName {@code IP:127.0.0.1}, {@code
 *       DNS:localhost} and {@code DNS:}{@value #SERVER_DNS}, serverAuth; also as {@link
 *       #serverKeystore()}, a PKCS12 keystore (alias {@value #SERVER_ALIAS}, chain server + CA) for
 *       Cassandra's {@code client_encryption_options}, and {@link #truststore()}, a PKCS12
 *       truststore holding the CA (for {@code require_client_auth});
 *   <li>{@link #client()}: signed by the CA, clientAuth, {@code CN=}{@value #CLIENT_CN}, for mutual
 *       TLS;
 *   <li>{@link #expiredServer()}: as the server's, signed by the CA, but valid for one day ten days
 *       ago; {@link #wrongCaServer()}: as the server's, signed by the wrong CA.
 * </ul>
 *
 * Certificates are PEM files ({@code -----BEGIN CERTIFICATE-----}; a leaf's file holds the leaf
 * then its CA), private keys unencrypted PKCS#8 PEM files ({@code -----BEGIN PRIVATE KEY-----}),
 * the form Netty's {@code SslContextBuilder.forServer(File, File)}, {@code keyManager(File, File)}
 * and {@code trustManager(File)} read. Every store's password is {@value #PASSWORD}.
 *
 * <p>Thread-safe: {@link #get()} is synchronized and makes the files on its first call (about 3 s
 * on two cores: six {@code keytool} processes, two at a time); every later call, from any thread or
 * test class, returns the same instance. The files are read-only in spirit: tests must not change
 * them.
 */
public final class TestCertificates {
  /** The password of every keystore and truststore made here. */
  public static final String PASSWORD = "cqlrows-test";

  /** The DNS name, besides {@code localhost}, in the server certificates' subjectAltName. */
  public static final String SERVER_DNS = "cassandra.test";

  /** The alias of the server's key entry in {@link #serverKeystore()}. */
  public static final String SERVER_ALIAS = "server";

  /** The common name of the client certificate. */
  public static final String CLIENT_CN = "cqlrows-client";

  private static final long KEYTOOL_TIMEOUT_SECONDS = 60;
  private static final String SERVER_SAN = "san=ip:127.0.0.1,dns:localhost,dns:" + SERVER_DNS;
  private static final List<String> CA_EXTENSIONS =
      List.of("-ext", "bc:c", "-ext", "ku:c=keyCertSign,cRLSign");
  private static TestCertificates instance; // guarded by TestCertificates.class

  /** A PEM certificate chain (leaf first) and its unencrypted PKCS#8 PEM private key. */
  public record Pem(Path certificateChain, Path privateKey) {}

  private final Path dir;

  private TestCertificates(Path dir) {
    this.dir = dir;
  }

  /**
   * Returns this JVM's certificates, making them on the first call.
   *
   * @throws IllegalStateException if {@code keytool} fails; the message holds its output
   */
  public static synchronized TestCertificates get() {
    if (instance == null) {
      Path dir = CassandraServer.buildDir().resolve("test-certificates-" + CassandraServer.stamp());
      try {
        instance = make(dir);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot make test certificates in " + dir, e);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("Cannot make test certificates in " + dir, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while making test certificates", e);
      }
    }
    return instance;
  }

  /** The folder of every file here. */
  public Path dir() {
    return dir;
  }

  /** The CA's certificate, PEM: the trust anchor of every certificate here but the wrong CA's. */
  public Path caPem() {
    return dir.resolve("ca.pem");
  }

  /** The CA's certificate and key. */
  public Pem ca() {
    return pem("ca");
  }

  /** The wrong CA's certificate, PEM: it signed only {@link #wrongCaServer()}. */
  public Path wrongCaPem() {
    return dir.resolve("wrong-ca.pem");
  }

  /** The wrong CA's certificate and key. */
  public Pem wrongCa() {
    return pem("wrong-ca");
  }

  /** The server's chain (server, CA) and key; valid for 127.0.0.1, localhost, cassandra.test. */
  public Pem server() {
    return pem("server");
  }

  /** The server's key and chain as a PKCS12 keystore, alias {@value #SERVER_ALIAS}. */
  public Path serverKeystore() {
    return dir.resolve("server.p12");
  }

  /** A PKCS12 truststore whose one entry (alias {@code ca}) is the CA's certificate. */
  public Path truststore() {
    return dir.resolve("truststore.p12");
  }

  /** The client's chain (client, CA) and key, for mutual TLS. */
  public Pem client() {
    return pem("client");
  }

  /** The client's key and chain as a PKCS12 keystore, alias {@code client}. */
  public Path clientKeystore() {
    return dir.resolve("client.p12");
  }

  /** A server chain and key signed by the CA that expired nine days ago. */
  public Pem expiredServer() {
    return pem("expired-server");
  }

  /** A server chain (server, wrong CA) and key signed by the wrong CA, with the server's SANs. */
  public Pem wrongCaServer() {
    return pem("wrong-ca-server");
  }

  /** Reads a PEM file of certificates, in file order. */
  public static List<X509Certificate> readCertificates(Path pem) {
    try (InputStream in = Files.newInputStream(pem)) {
      List<X509Certificate> certificates = new ArrayList<>();
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        certificates.add((X509Certificate) c);
      }
      return certificates;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Cannot read certificates from " + pem, e);
    }
  }

  @Override
  public String toString() {
    return "test certificates in " + dir;
  }

  private Pem pem(String name) {
    return new Pem(dir.resolve(name + ".pem"), dir.resolve(name + ".key"));
  }

  private static TestCertificates make(Path dir)
      throws IOException, GeneralSecurityException, InterruptedException {
    long start = System.nanoTime();
    Files.createDirectories(dir);
    // Two keystores, each made by a sequence of keytool commands: a CA, then the leaves it
    // signs (-signer takes the issuer from the same keystore). The two run in parallel.
    Keytool ca = new Keytool(dir, "ca");
    Keytool wrongCa = new Keytool(dir, "wrong-ca");
    List<String> serverExtensions =
        List.of("-ext", SERVER_SAN, "-ext", "ku:c=digitalSignature", "-ext", "eku=serverAuth");
    Keytool.runInParallel(
        List.of(
            List.of(
                ca.genkeypair("ca", null, CA_EXTENSIONS),
                ca.genkeypair("server", "ca", serverExtensions),
                ca.genkeypair(
                    "client",
                    "ca",
                    List.of("-ext", "ku:c=digitalSignature", "-ext", "eku=clientAuth")),
                ca.genkeypair(
                    "expired-server",
                    "ca",
                    serverExtensions,
                    "-startdate",
                    "-10d",
                    "-validity",
                    "1")),
            List.of(
                wrongCa.genkeypair("wrong-ca", null, CA_EXTENSIONS),
                wrongCa.genkeypair("wrong-ca-server", "wrong-ca", serverExtensions))));
    // Then, in this JVM: the PEM files, a keystore per leaf, the truststore.
    KeyStore caStore = load(dir.resolve("ca.p12"));
    KeyStore wrongCaStore = load(dir.resolve("wrong-ca.p12"));
    for (String name : List.of("ca", "server", "client", "expired-server")) {
      export(dir, caStore, name);
    }
    for (String name : List.of("wrong-ca", "wrong-ca-server")) {
      export(dir, wrongCaStore, name);
    }
    KeyStore truststore = KeyStore.getInstance("PKCS12");
    truststore.load(null, null);
    truststore.setCertificateEntry("ca", caStore.getCertificate("ca"));
    store(truststore, dir.resolve("truststore.p12"));
    System.err.printf(
        "[cqlrows] test certificates made in %d ms in %s%n",
        (System.nanoTime() - start) / 1_000_000, dir);
    return new TestCertificates(dir);
  }

  /**
   * Writes the key entry {@code name} of {@code from} as {@code name.pem} (its chain) and {@code
   * name.key}, and, for a leaf, as the keystore {@code name.p12} (alias {@code name}).
   */
  private static void export(Path dir, KeyStore from, String name)
      throws IOException, GeneralSecurityException {
    Key key = from.getKey(name, PASSWORD.toCharArray());
    Certificate[] chain = from.getCertificateChain(name);
    if (!(key instanceof PrivateKey privateKey) || chain == null) {
      throw new IllegalStateException("No key entry " + name + " in " + from);
    }
    List<X509Certificate> certificates = new ArrayList<>();
    for (Certificate c : chain) {
      certificates.add((X509Certificate) c);
    }
    writePem(dir.resolve(name + ".pem"), certificates, privateKey);
    if (chain.length > 1) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry(name, privateKey, PASSWORD.toCharArray(), chain);
      store(store, dir.resolve(name + ".p12"));
    }
  }

  private static KeyStore load(Path file) throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(file)) {
      store.load(in, PASSWORD.toCharArray());
    }
    return store;
  }

  private static void store(KeyStore store, Path file)
      throws IOException, GeneralSecurityException {
    try (OutputStream out = Files.newOutputStream(file)) {
      store.store(out, PASSWORD.toCharArray());
    }
  }

  /** Writes {@code name.pem} (the certificates) and {@code name.key} (the PKCS#8 key). */
  private static void writePem(Path pem, List<X509Certificate> certificates, PrivateKey key)
      throws IOException, GeneralSecurityException {
    StringBuilder out = new StringBuilder();
    for (X509Certificate certificate : certificates) {
      out.append(pemBlock("CERTIFICATE", certificate.getEncoded()));
    }
    Files.writeString(pem, out, StandardCharsets.US_ASCII);
    if (!"PKCS#8".equals(key.getFormat())) {
      throw new IllegalStateException("Key of " + pem + " is " + key.getFormat());
    }
    String name = pem.getFileName().toString();
    Files.writeString(
        pem.resolveSibling(name.substring(0, name.length() - 4) + ".key"),
        pemBlock("PRIVATE KEY", key.getEncoded()),
        StandardCharsets.US_ASCII);
  }

  private static String pemBlock(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  /**
   * The JDK's keytool on one keystore ({@code <store>.p12}), one process per command, its output in
   * {@code keytool-<n>.log}.
   */
  private static final class Keytool {
    private static final String EXECUTABLE =
        Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    private final Path store;

    Keytool(Path dir, String store) {
      this.store = dir.resolve(store + ".p12");
    }

    /** A key pair {@code name}, self-signed when {@code signer} is null, valid 365 days. */
    List<String> genkeypair(
        String name, String signer, List<String> extensions, String... validity) {
      List<String> command =
          new ArrayList<>(
              List.of(
                  EXECUTABLE,
                  "-J-XX:TieredStopAtLevel=1",
                  "-J-XX:+UseSerialGC",
                  "-noprompt",
                  "-genkeypair",
                  "-alias",
                  name,
                  "-keyalg",
                  "EC",
                  "-groupname",
                  "secp256r1",
                  "-sigalg",
                  "SHA256withECDSA",
                  "-dname",
                  "CN=" + (name.equals("client") ? CLIENT_CN : name) + ", O=cqlrows test"));
      command.addAll(validity.length > 0 ? List.of(validity) : List.of("-validity", "365"));
      if (signer != null) {
        command.addAll(List.of("-signer", signer, "-signerkeypass", PASSWORD));
      }
      command.addAll(extensions);
      command.addAll(
          List.of(
              "-keystore",
              store.toString(),
              "-storetype",
              "PKCS12",
              "-storepass",
              PASSWORD,
              "-keypass",
              PASSWORD));
      return command;
    }

    /**
     * Runs each sequence of commands in order, the sequences side by side (the n-th commands of all
     * of them at once); fails with the output of the first command that failed.
     */
    static void runInParallel(List<List<List<String>>> sequences)
        throws IOException, InterruptedException {
      int steps = sequences.stream().mapToInt(List::size).max().orElse(0);
      int runs = 0;
      for (int step = 0; step < steps; step++) {
        List<Process> processes = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
          for (List<List<String>> sequence : sequences) {
            if (step >= sequence.size()) {
              continue;
            }
            List<String> command = sequence.get(step);
            Path dir = Path.of(command.get(command.indexOf("-keystore") + 1)).getParent();
            Path log = dir.resolve("keytool-" + ++runs + ".log");
            Files.writeString(log, String.join(" ", command) + "\n");
            logs.add(log);
            Process process =
                new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            process.getOutputStream().close();
            processes.add(process);
          }
          for (int i = 0; i < processes.size(); i++) {
            Process process = processes.get(i);
            if (!process.waitFor(KEYTOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
              throw new IllegalStateException(
                  "keytool ran more than "
                      + KEYTOOL_TIMEOUT_SECONDS
                      + " s\n"
                      + LogTail.of(logs.get(i), 20));
            }
            if (process.exitValue() != 0) {
              throw new IllegalStateException(
                  "keytool failed with exit status "
                      + process.exitValue()
                      + "\n"
                      + LogTail.of(logs.get(i), 20));
            }
          }
        } finally {
          for (Process process : processes) {
            process.destroyForcibly();
          }
        }
      }
    }
  }
}
