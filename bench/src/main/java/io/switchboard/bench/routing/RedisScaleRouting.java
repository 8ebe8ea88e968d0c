package io.switchboard.bench.routing;

import java.util.List;

/**
 * Seed 004's design ({@link RedisSeed004Routing}, a real {@code redis-server}) on the closest
 * workload it can express: it has one FIFO queue, skills, and no task queues, workflows or
 * timeouts, so a contact needs its first target's skills (its product and language) for its whole
 * wait, and an agent holds its products and languages (the family and {@code general} skills, which
 * only the later targets use, play no part). Agents are created unavailable ({@code create_agent}),
 * made available ({@code set_agent_state}) before the dispatcher starts; the dispatcher's start-up
 * loop then assigns every agent it can.
 */
final class RedisScaleRouting implements ScaleTarget {

  private final ScaleCenter center;
  private final RedisSeed004Routing seed;
  private final String version;

  RedisScaleRouting(
      ScaleCenter center, RedisServer server, int maxContacts, RoutingTarget.Decisions decisions) {
    this.center = center;
    this.version = server.version();
    this.seed = new RedisSeed004Routing("127.0.0.1", server.port(), maxContacts, decisions);
  }

  @Override
  public String describe() {
    return "seed 004 on redis-server "
        + version
        + " (loopback, persistence off, one Jedis connection, no pipelining): one FIFO queue;"
        + " a contact needs its product and language for its whole wait (no task queues,"
        + " workflows or timeouts in seed 004)";
  }

  @Override
  public boolean widens() {
    return false;
  }

  @Override
  public Memory memory() {
    return new Memory(seed.usedMemory(), "redis-server used_memory (INFO memory)");
  }

  @Override
  public void addAgent(int agent) {
    seed.createAgent(agent, RedisSeed004Routing.skillKeys(center.seedSkills(agent)));
  }

  @Override
  public void queue(int contact, int productAndLanguage) {
    seed.createContact(contact, skills(productAndLanguage));
  }

  private List<String> skills(int productAndLanguage) {
    return RedisSeed004Routing.skillKeys(
        List.of(
            center.product(productAndLanguage / ScaleCenter.LANGUAGES),
            ScaleCenter.language(productAndLanguage % ScaleCenter.LANGUAGES)));
  }

  @Override
  public void ready(int agent) {
    seed.available(agent);
  }

  @Override
  public void started() {
    seed.startDispatcher();
  }

  @Override
  public void arrive(int contact, int productAndLanguage) {
    seed.createContact(contact, skills(productAndLanguage));
    seed.dispatch();
  }

  @Override
  public void complete(int contact) {
    seed.complete(contact);
  }

  @Override
  public void accept(int contact) {}

  @Override
  public void advanceMillis(long millis) {
    seed.advanceMillis(millis);
  }

  @Override
  public void measuring() {
    seed.measuring();
  }

  @Override
  public String notes() {
    return seed.notes();
  }

  @Override
  public void close() {
    seed.close();
  }
}
