package io.cqlrows.client;

import java.util.Arrays;
import java.util.Objects;

/**
 * A user name and password for {@code PasswordAuthenticator} (SASL PLAIN), sent in AUTH_RESPONSE
 * when the server answers STARTUP with AUTHENTICATE. The password is kept as a {@code char[]} copy
 * that {@link #clear()} overwrites; {@link #toString()} never shows it.
 */
public final class Credentials {
  private final String username;
  private final char[] password;

  /**
   * @param username the role name
   * @param password copied; the caller may clear its array afterwards
   */
  public Credentials(String username, char[] password) {
    this.username = Objects.requireNonNull(username, "username");
    this.password = Objects.requireNonNull(password, "password").clone();
  }

  /** The role name. */
  public String username() {
    return username;
  }

  /** A copy of the password. */
  char[] password() {
    return password.clone();
  }

  /** Overwrites the password; the credentials cannot authenticate afterwards. */
  public void clear() {
    Arrays.fill(password, '\0');
  }

  /** The user name only. */
  @Override
  public String toString() {
    return "Credentials[" + username + "]";
  }
}
