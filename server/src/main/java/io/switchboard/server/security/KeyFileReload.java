package io.switchboard.server.security;

import io.switchboard.server.auth.Audit;
import io.switchboard.server.auth.KeyFile;
import io.switchboard.server.auth.MemoryKeyRing;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.server.config.StartupException;
import io.switchboard.time.Scheduler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configured keys ({@code access-keys}, {@code sqs-access-keys}, {@code access-keys-file}) as
 * one ring, and {@code access-keys-file} reloaded when it changes, as the TLS files are ({@link
 * TlsFiles}): every {@code access-keys-reload-check} the scheduler asks whether the file's
 * modification time or size changed, and if so reads it. A valid file replaces the file's keys in
 * the ring, in place: a removed key is refused by the next request, an added one admitted, a
 * changed secret or grant applies at once; one audit line names the keys added, removed and changed
 * (never a secret). A file that cannot be used (missing, readable by others, invalid, or repeating
 * a key id of {@code access-keys}) is logged as an error with the reason (which names no secret)
 * and the old keys are kept; the next check tries again.
 */
public final class KeyFileReload implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KeyFileReload.class);

  private final MemoryKeyRing ring;
  private final Map<String, Principal> flagKeys;
  private final Optional<Path> file;
  private Map<String, Principal> fileKeys;
  private @Nullable Stamp loaded;
  private @Nullable String problem;
  private Scheduler.@Nullable Repeating watch;

  private record Stamp(long modified, long size) {}

  private KeyFileReload(
      MemoryKeyRing ring,
      Map<String, Principal> flagKeys,
      Optional<Path> file,
      Map<String, Principal> fileKeys,
      @Nullable Stamp loaded) {
    this.ring = ring;
    this.flagKeys = flagKeys;
    this.file = file;
    this.fileKeys = fileKeys;
    this.loaded = loaded;
  }

  /**
   * The keys of the configuration: {@code access-keys}, its alias {@code sqs-access-keys} (each
   * allowed everything) and {@code access-keys-file}.
   *
   * @throws StartupException if the file cannot be used or a key id is given twice
   */
  public static KeyFileReload of(ServerConfig config) {
    Map<String, Principal> flags = new LinkedHashMap<>();
    config.accessKeys().principals().forEach(p -> flags.put(p.keyId(), p));
    Optional<Path> file = config.find(Settings.ACCESS_KEYS_FILE);
    Map<String, Principal> fromFile = new LinkedHashMap<>();
    Stamp stamp = null;
    if (file.isPresent()) {
      try {
        stamp = stamp(file.get());
        fromFile = read(file.get(), flags);
      } catch (KeyFile.Invalid e) {
        throw new StartupException(String.valueOf(e.getMessage()), e);
      }
    }
    List<Principal> all = new java.util.ArrayList<>(flags.values());
    all.addAll(fromFile.values());
    MemoryKeyRing ring;
    try {
      ring = new MemoryKeyRing(all);
    } catch (IllegalArgumentException e) {
      throw new StartupException(
          e.getMessage() + " (across access-keys, sqs-access-keys and access-keys-file)", e);
    }
    return new KeyFileReload(ring, Map.copyOf(flags), file, fromFile, stamp);
  }

  /** The configured keys; a reload changes them in place. */
  public MemoryKeyRing ring() {
    return ring;
  }

  /** Checks the file every {@code interval} on {@code scheduler}; nothing without a file. */
  public synchronized void watch(Scheduler scheduler, Duration interval) {
    if (file.isPresent()) {
      watch = scheduler.every("switchboard-keys-reload", interval, this::check);
    }
  }

  /** One check: reloads the file if its modification time or size changed since the last load. */
  synchronized void check() {
    if (file.isEmpty()) {
      return;
    }
    Stamp now;
    try {
      now = stamp(file.get());
    } catch (KeyFile.Invalid e) {
      refuse(e);
      return;
    }
    if (!now.equals(loaded)) {
      reload(now);
    }
  }

  /**
   * Reads the file now, changed or not (for an operator's explicit trigger and for tests); false if
   * it could not be used and the old keys stay.
   */
  public synchronized boolean reload() {
    if (file.isEmpty()) {
      return false;
    }
    try {
      return reload(stamp(file.get()));
    } catch (KeyFile.Invalid e) {
      refuse(e);
      return false;
    }
  }

  private boolean reload(Stamp stamp) {
    Map<String, Principal> next;
    try {
      next = read(file.get(), flagKeys);
    } catch (KeyFile.Invalid e) {
      refuse(e);
      return false;
    }
    Set<String> added = new TreeSet<>();
    Set<String> changed = new TreeSet<>();
    Set<String> removed = new TreeSet<>(fileKeys.keySet());
    removed.removeAll(next.keySet());
    for (Principal p : next.values()) {
      Principal old = fileKeys.get(p.keyId());
      if (old == null) {
        added.add(p.keyId());
      } else if (!same(old, p)) {
        changed.add(p.keyId());
      }
    }
    for (Principal p : next.values()) {
      if (added.contains(p.keyId()) || changed.contains(p.keyId())) {
        ring.put(p);
      }
    }
    removed.forEach(ring::revoke);
    fileKeys = next;
    loaded = stamp;
    problem = null;
    Audit.keysReloaded(file.get().toString(), added, removed, changed);
    return true;
  }

  /** Same id, secret, name, grants and agent. */
  private static boolean same(Principal a, Principal b) {
    return a.secretMatches(b.secret())
        && a.name().equals(b.name())
        && a.grants().equals(b.grants())
        && a.agent().equals(b.agent());
  }

  private void refuse(KeyFile.Invalid e) {
    if (Objects.equals(e.getMessage(), problem)) {
      return; // said already: one line per problem, not one per check
    }
    problem = e.getMessage();
    // the reason names the file and what is wrong with it, never a secret (KeyFile)
    LOG.atError()
        .addKeyValue("problem", e.getMessage())
        .log("access-keys-file not reloaded: the keys loaded before stay in force");
  }

  /** The file's keys, by id; a key id that {@code access-keys} gives too is refused. */
  private static Map<String, Principal> read(Path file, Map<String, Principal> flags) {
    Map<String, Principal> out = new LinkedHashMap<>();
    Set<String> seen = new HashSet<>();
    for (Principal p : KeyFile.read(file)) {
      if (flags.containsKey(p.keyId()) || !seen.add(p.keyId())) {
        throw new KeyFile.Invalid(
            "access-keys-file "
                + file
                + ": access key id "
                + p.keyId()
                + " is given twice (across access-keys, sqs-access-keys and access-keys-file)",
            null);
      }
      out.put(p.keyId(), p);
    }
    return out;
  }

  private static Stamp stamp(Path file) {
    try {
      return new Stamp(Files.getLastModifiedTime(file).toMillis(), Files.size(file));
    } catch (java.nio.file.NoSuchFileException e) {
      throw new KeyFile.Invalid("access-keys-file " + file + ": no such file", e);
    } catch (IOException e) {
      throw new KeyFile.Invalid("access-keys-file " + file + ": cannot read it: " + e, e);
    }
  }

  @Override
  public synchronized void close() {
    if (watch != null) {
      watch.close();
    }
  }
}
