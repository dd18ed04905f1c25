package io.cqlrows.client.live;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Stops the live tests' Cassandra servers ({@link CassandraServer} and the {@link TlsCassandra}
 * ones) when the JUnit Platform launcher session closes, that is after the last test of the run in
 * this JVM, passed or failed; they stop side by side. Registered through {@code
 * META-INF/services/org.junit.platform.launcher.LauncherSessionListener}; called on the launcher's
 * thread. Does nothing if no server was started.
 */
public final class CassandraSessionListener implements LauncherSessionListener {

  @Override
  public void launcherSessionClosed(LauncherSession session) {
    Thread tls = new Thread(TlsCassandra::stopAll, "cassandra-tls-stop-all");
    tls.start();
    CassandraServer.stop();
    try {
      tls.join(90_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
