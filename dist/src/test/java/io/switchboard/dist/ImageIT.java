package io.switchboard.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image (target/jib-image.tar, an OCI image layout built by Jib with {@code -Pimage};
 * only that profile runs this test). Its configuration is checked; then it is run for real with
 * podman where podman can run containers, and, independently of any container runtime, its layers
 * are unpacked into a directory and its configured entrypoint run in them (chroot, as the image's
 * user, with /proc and /dev mounted in a mount namespace of its own; needs root). Either way a
 * client sends and receives through it, the store in /data is written by the non-root user, and the
 * image's health-check command passes.
 */
class ImageIT {

  private static final Path IMAGE = Path.of(System.getProperty("switchboard.image"));
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  static Path layout;
  static JsonNode manifest;
  static JsonNode config;

  @BeforeAll
  static void readTheImage() throws Exception {
    layout = Files.createDirectories(dir.resolve("layout"));
    run(layout, Map.of(), List.of("tar", "-xf", IMAGE.toString()));
    JsonNode index = JSON.readTree(layout.resolve("index.json").toFile());
    manifest = JSON.readTree(blob(index.path("manifests").get(0).path("digest").asText()).toFile());
    config = JSON.readTree(blob(manifest.path("config").path("digest").asText()).toFile());
  }

  private static Path blob(String digest) {
    return layout.resolve("blobs/sha256").resolve(digest.substring("sha256:".length()));
  }

  @Test
  void theImageRunsTheServerAsANonRootUserWithItsStoreInData() {
    JsonNode c = config.path("config");
    assertEquals("10001:10001", c.path("User").asText());
    assertTrue(c.path("ExposedPorts").has("8080/tcp"), c.toString());
    assertTrue(c.path("Volumes").has("/data"), c.toString());
    List<String> entrypoint = strings(c.path("Entrypoint"));
    assertTrue(entrypoint.contains("-XX:+ExitOnOutOfMemoryError"), entrypoint.toString());
    assertTrue(entrypoint.stream().anyMatch(f -> f.startsWith("-XX:MaxRAMPercentage=")));
    assertTrue(entrypoint.contains("--enable-native-access=ALL-UNNAMED"), entrypoint.toString());
    assertEquals(List.of("server"), strings(c.path("Cmd")));
    List<String> env = strings(c.path("Env"));
    assertTrue(env.contains("SWITCHBOARD_DATA_DIR=/data"), env.toString());
    assertTrue(env.contains("SWITCHBOARD_BIND=0.0.0.0"), env.toString());
    assertTrue(env.contains("SWITCHBOARD_PORT=8080"), env.toString());
    JsonNode labels = c.path("Labels");
    assertEquals(Unpacked.VERSION, labels.path("org.opencontainers.image.version").asText());
    assertTrue(labels.path("io.switchboard.healthcheck").asText().contains("HealthCheck"));
  }

  /**
   * RocksDB's native library for the image's own platform only (linux x86_64, glibc): its linux64
   * jar, not the jar of every platform (15 libraries, about half the image).
   */
  @Test
  void theImageHoldsRocksDbForItsOwnPlatformOnly() throws Exception {
    List<String> files = new ArrayList<>();
    for (JsonNode layer : manifest.path("layers")) {
      Unpacked.Result listed =
          run(
              dir,
              Map.of(),
              List.of("tar", "-tzf", blob(layer.path("digest").asText()).toString()));
      assertEquals(0, listed.code(), listed.output());
      files.addAll(listed.output().lines().toList());
    }
    List<String> rocksdb = files.stream().filter(f -> f.contains("rocksdbjni")).toList();
    assertEquals(1, rocksdb.size(), rocksdb.toString());
    assertTrue(rocksdb.get(0).endsWith("-linux64.jar"), rocksdb.toString());
  }

  /** The image's layers in a directory, its entrypoint run there: no container runtime needed. */
  @Test
  void theEntrypointRunsInTheUnpackedLayers() throws Exception {
    assumeTrue(
        "root".equals(System.getProperty("user.name")),
        "unpacking the layers with their owners and chroot need root");
    Path root = Files.createDirectories(dir.resolve("rootfs"));
    for (JsonNode layer : manifest.path("layers")) {
      String d = layer.path("digest").asText();
      run(root, Map.of(), List.of("tar", "-xzf", blob(d).toString(), "--numeric-owner", "-C", "."));
    }
    JsonNode c = config.path("config");
    Map<String, String> env = new HashMap<>();
    for (String e : strings(c.path("Env"))) {
      env.put(e.substring(0, e.indexOf('=')), e.substring(e.indexOf('=') + 1));
    }
    env.put("SWITCHBOARD_PORT", "0");
    env.put("SWITCHBOARD_ALLOW_ANONYMOUS", "true"); // bound to 0.0.0.0 without access keys
    List<String> entry = new ArrayList<>(strings(c.path("Entrypoint")));
    entry.addAll(strings(c.path("Cmd")));
    try (Unpacked.Server server = Unpacked.Server.start(root, env, inImage(root, c, entry))) {
      sendAndReceive(server.url);
      List<String> health = new ArrayList<>(healthCheck());
      health.add(server.url.resolve("/health").toString());
      Unpacked.Result check = run(root, env, inImage(root, c, health));
      assertEquals(0, check.code(), check.output());
      try (Stream<Path> files = Files.list(root.resolve("data"))) {
        assertTrue(files.findAny().isPresent(), "the store is in /data");
      }
      assertEquals(10001, Files.getAttribute(root.resolve("data"), "unix:uid"));
    }
  }

  /** Runs {@code command} chrooted into {@code root} as the image's user, /proc and /dev there. */
  private static List<String> inImage(Path root, JsonNode c, List<String> command) {
    List<String> all = new ArrayList<>();
    all.addAll(
        List.of(
            "unshare",
            "--mount",
            "--pid",
            "--fork",
            "--kill-child",
            "--propagation",
            "private",
            "--mount-proc=" + root.resolve("proc"),
            "sh",
            "-c",
            // the host's tools (sbin too), then the image's PATH for the command in the image
            "image_path=$PATH; PATH=/usr/sbin:/sbin:/usr/bin:/bin; mount --rbind /dev \"$0/dev\""
                + " && chroot=$(command -v chroot) && u=$1 && shift && PATH=$image_path"
                + " && exec \"$chroot\" --userspec=\"$u\" \"$0\" \"$@\"",
            root.toString(),
            c.path("User").asText()));
    all.addAll(command);
    return all;
  }

  /** podman, where it can run containers: the image loaded and run as any user would. */
  @Test
  void podmanRunsTheImage() throws Exception {
    Unpacked.Result version = run(dir, Map.of(), List.of("sh", "-c", "podman --version"));
    assumeTrue(version.code() == 0, "podman is not installed: " + version.output());
    // Some sandboxes refuse the rlimits podman sets by default: ask for none.
    Path conf = dir.resolve("containers.conf");
    Files.writeString(conf, "[containers]\ndefault_ulimits = []\n");
    Map<String, String> env = Map.of("CONTAINERS_CONF", conf.toString());
    List<String> podman = new ArrayList<>(List.of("podman"));
    if (run(dir, Map.of(), List.of("sh", "-c", "command -v runc")).code() == 0) {
      podman.addAll(List.of("--runtime", "runc")); // crun refuses hybrid cgroups (v1 + v2)
    }
    Unpacked.Result loaded = run(dir, env, concat(podman, "load", "-q", "-i", IMAGE.toString()));
    assumeTrue(loaded.code() == 0, "podman cannot load images here: " + loaded.output());
    String image = "localhost/switchboard:" + Unpacked.VERSION;
    String name = "switchboard-it-" + UUID.randomUUID();
    try (Unpacked.Server server =
        Unpacked.Server.start(
            dir,
            env,
            concat(
                podman,
                "run",
                "--rm",
                "--name",
                name,
                "--network",
                "host",
                "-e",
                "SWITCHBOARD_PORT=0",
                "-e",
                "SWITCHBOARD_ALLOW_ANONYMOUS=true",
                image))) {
      sendAndReceive(server.url);
      List<String> exec = concat(podman, "exec", name);
      exec.addAll(healthCheck());
      exec.add(server.url.resolve("/health").toString());
      Unpacked.Result check = run(dir, env, exec);
      assertEquals(0, check.code(), check.output());
      Unpacked.Result stop = run(dir, env, concat(podman, "stop", "-t", "30", name));
      assertEquals(0, stop.code(), stop.output());
    } finally {
      run(dir, env, concat(podman, "rm", "-f", "--ignore", name));
      run(dir, env, concat(podman, "rmi", "-f", image));
    }
  }

  /** The health-check command of the image's label, as a list. */
  private static List<String> healthCheck() throws Exception {
    List<String> check =
        strings(
            JSON.readTree(
                config.path("config").path("Labels").path("io.switchboard.healthcheck").asText()));
    assertEquals("CMD", check.get(0));
    return check.subList(1, check.size());
  }

  private static void sendAndReceive(URI url) throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      assertEquals(
          201, post(http, url.resolve("/v1/queues"), "{\"name\":\"image-jobs\"}").statusCode());
      assertEquals(
          201,
          post(http, url.resolve("/v1/queues/image-jobs/messages"), "{\"body\":\"in the image\"}")
              .statusCode());
      HttpResponse<String> received =
          post(http, url.resolve("/v1/queues/image-jobs/receive"), "{\"maxMessages\":1}");
      assertEquals(200, received.statusCode(), received.body());
      assertTrue(received.body().contains("in the image"), received.body());
    }
  }

  private static HttpResponse<String> post(HttpClient http, URI uri, String json) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static Unpacked.Result run(Path in, Map<String, String> env, List<String> command)
      throws Exception {
    return Unpacked.exec(in, env, command);
  }

  private static List<String> concat(List<String> head, String... tail) {
    List<String> all = new ArrayList<>(head);
    all.addAll(List.of(tail));
    return all;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
