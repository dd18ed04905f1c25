package io.cqlrows.cli;

import io.cqlrows.netty.TlsOptions;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import javax.net.ssl.SSLException;

/**
 * The {@code --ssl} options of {@code query} made into {@link TlsOptions}: the JDK's TLS (no native
 * library needed), the CA bundle of {@code --ssl-ca} or else the JDK's trust store, the client
 * certificate and key of {@code --ssl-cert} and {@code --ssl-key}, the host name checked unless
 * {@code --ssl-insecure}. Stateless.
 */
final class TlsFiles {
  private TlsFiles() {}

  /** A file the options name that cannot be used: the message says which and why, on a line. */
  static final class Unreadable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unreadable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * The TLS options for {@code tls}.
   *
   * @throws Unreadable if a file is missing, unreadable or not PEM of the right kind
   */
  static TlsOptions options(QueryOptions.Tls tls) {
    SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(SslProvider.JDK);
    if (tls.insecure()) {
      builder.trustManager(InsecureTrustManagerFactory.INSTANCE);
    } else if (tls.ca() != null) {
      readable("--ssl-ca", tls.ca());
      try {
        builder.trustManager(tls.ca().toFile());
      } catch (IllegalArgumentException e) {
        throw new Unreadable(
            "--ssl-ca "
                + tls.ca()
                + ": not a PEM file of certificates ("
                + CqlRowsCli.oneLine(e)
                + ")",
            e);
      }
    }
    if (tls.cert() != null) {
      readable("--ssl-cert", tls.cert());
      readable("--ssl-key", tls.key());
      String hint = keyHint(tls.key());
      try {
        builder.keyManager(tls.cert().toFile(), tls.key().toFile());
      } catch (IllegalArgumentException e) {
        throw new Unreadable(
            "--ssl-cert "
                + tls.cert()
                + " / --ssl-key "
                + tls.key()
                + ": not a PEM certificate chain and its private key ("
                + CqlRowsCli.oneLine(e)
                + ")"
                + hint,
            e);
      }
    }
    SslContext context;
    try {
      context = builder.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new Unreadable("the TLS files cannot be used: " + CqlRowsCli.oneLine(e), e);
    }
    TlsOptions options = TlsOptions.of(context);
    if (tls.serverName() != null) {
      options = options.serverName(tls.serverName());
    }
    return tls.insecure() ? options.withoutHostnameVerification() : options;
  }

  private static void readable(String option, Path file) {
    if (!Files.isRegularFile(file)) {
      throw new Unreadable(
          option + " " + file + ": no such file", new NoSuchFileException(file.toString()));
    }
    if (!Files.isReadable(file)) {
      throw new Unreadable(option + " " + file + ": permission denied", null);
    }
  }

  /**
   * What to do with a key in a form the JDK does not read: PKCS#1 or SEC 1 ({@code BEGIN RSA
   * PRIVATE KEY}, {@code BEGIN EC PRIVATE KEY}) or encrypted PKCS#8; empty for anything else.
   */
  private static String keyHint(Path key) {
    String head;
    try {
      byte[] bytes = Files.readAllBytes(key);
      head = new String(bytes, 0, Math.min(bytes.length, 4096), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      return "";
    }
    if (head.contains("BEGIN RSA PRIVATE KEY") || head.contains("BEGIN EC PRIVATE KEY")) {
      return "; the key is in the PKCS#1 or SEC 1 form: convert it with openssl pkcs8 -topk8"
          + " -nocrypt -in KEY -out KEY.pk8";
    }
    if (head.contains("BEGIN ENCRYPTED PRIVATE KEY")) {
      return "; the key is encrypted: decrypt it with openssl pkcs8 -in KEY -out KEY.pk8";
    }
    return "";
  }
}
