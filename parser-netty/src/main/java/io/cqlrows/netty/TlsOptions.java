package io.cqlrows.netty;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.NetUtil;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * How a client connection speaks TLS: a Netty client {@link SslContext} (built with {@code
 * SslContextBuilder.forClient()}; the JDK provider is enough, OpenSSL is optional), the name the
 * server's certificate is checked against and sent as SNI, and whether that check is made.
 * Immutable.
 *
 * <pre>{@code
 * SslContext context = SslContextBuilder.forClient()
 *     .trustManager(new File("ca.pem"))                        // else the JDK's trust store
 *     .keyManager(new File("client.pem"), new File("client.key")) // only for mutual TLS
 *     .build();
 * TlsOptions tls = TlsOptions.of(context);                     // verified, host name checked
 * }</pre>
 *
 * <p><b>Verification.</b> The context's trust manager checks the certificate chain. On top of that,
 * the host name is checked by default (endpoint identification, as HTTPS does): the certificate
 * must name the host connected to, or {@link #serverName(String)} when given, in a subjectAltName
 * (a DNS name, or an IP address when the host is an address literal). {@link
 * #withoutHostnameVerification()} turns that check off, for certificates that name no host the
 * client can use; together with a trust manager that trusts everything it accepts any server, which
 * is only fit for testing.
 *
 * <p><b>SNI.</b> The server name is sent in the handshake's server_name extension when it is a host
 * name; an address literal is never sent (RFC 6066 allows host names only).
 */
public final class TlsOptions {
  private final SslContext context;
  private final String serverName;
  private final boolean verifyHostname;

  private TlsOptions(SslContext context, String serverName, boolean verifyHostname) {
    this.context = context;
    this.serverName = serverName;
    this.verifyHostname = verifyHostname;
  }

  /**
   * TLS with {@code context}, the server's host name checked against the host connected to.
   *
   * @throws IllegalArgumentException if {@code context} is a server context
   */
  public static TlsOptions of(SslContext context) {
    Objects.requireNonNull(context, "context");
    if (!context.isClient()) {
      throw new IllegalArgumentException(
          "context: a server SslContext (expected: one built by"
              + " SslContextBuilder.forClient())");
    }
    return new TlsOptions(context, null, true);
  }

  /**
   * These options with another name to check the certificate against and to send as SNI, in place
   * of the host connected to: for a server reached through an address or a proxy that routes by
   * SNI.
   */
  public TlsOptions serverName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("name: blank (expected: a host name or address)");
    }
    return new TlsOptions(context, name, verifyHostname);
  }

  /** These options without the host name check (the certificate chain is still checked). */
  public TlsOptions withoutHostnameVerification() {
    return new TlsOptions(context, serverName, false);
  }

  /** The client context. */
  public SslContext context() {
    return context;
  }

  /** The name given to {@link #serverName(String)}, or {@code null} for the host connected to. */
  public String serverName() {
    return serverName;
  }

  /** Whether the certificate must name the server (true unless turned off). */
  public boolean verifiesHostname() {
    return verifyHostname;
  }

  /**
   * A new handler for a connection to {@code host}: endpoint identification as configured, SNI for
   * a host name.
   */
  SslHandler newHandler(ByteBufAllocator alloc, String host, int port) {
    String name = serverName != null ? serverName : host;
    SslHandler handler = context.newHandler(alloc, name, port);
    SSLEngine engine = handler.engine();
    SSLParameters parameters = engine.getSSLParameters();
    // "" rather than null: the JDK keeps the engine's algorithm when given null, and Netty 4.2's
    // client contexts start with HTTPS
    parameters.setEndpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : "");
    if (!NetUtil.isValidIpV4Address(name) && !NetUtil.isValidIpV6Address(name)) {
      try {
        parameters.setServerNames(List.of(new SNIHostName(name)));
      } catch (IllegalArgumentException e) {
        // not a name SNI can carry (RFC 6066 section 3): the handshake goes on without it
      }
    }
    engine.setSSLParameters(parameters);
    return handler;
  }

  @Override
  public String toString() {
    return "TlsOptions{serverName=" + serverName + ", verifyHostname=" + verifyHostname + '}';
  }
}
