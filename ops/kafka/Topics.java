// Creates topics on the test broker in one JVM (one kafka-topics run per topic costs a JVM start
// each): java -cp 'dist/libs/*:dist/classes' Topics BROKERS [-p N] [-c key=value]... TOPIC[:N]...
// A topic that exists already is left as it is. Exits 0 once every topic is listed by the broker.
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.TopicExistsException;

public final class Topics {
  public static void main(String[] args) throws Exception {
    if (args.length < 1) usage();
    String brokers = args[0];
    int partitions = 1;
    Map<String, String> configs = new HashMap<>();
    List<String> names = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "-p": partitions = Integer.parseInt(args[++i]); break;
        case "-c": {
          String kv = args[++i];
          int eq = kv.indexOf('=');
          if (eq <= 0) usage();
          configs.put(kv.substring(0, eq), kv.substring(eq + 1));
          break;
        }
        default: names.add(args[i]);
      }
    }
    if (names.isEmpty()) usage();
    List<NewTopic> topics = new ArrayList<>();
    for (String n : names) {
      int p = partitions;
      int colon = n.lastIndexOf(':');
      if (colon > 0) { p = Integer.parseInt(n.substring(colon + 1)); n = n.substring(0, colon); }
      topics.add(new NewTopic(n, p, (short) 1).configs(configs));
    }
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    int rc = 0;
    try (Admin admin = Admin.create(props)) {
      Map<String, KafkaFuture<Void>> res = admin.createTopics(topics).values();
      for (Map.Entry<String, KafkaFuture<Void>> e : res.entrySet()) {
        try {
          e.getValue().get();
          System.out.println("created " + e.getKey());
        } catch (ExecutionException ex) {
          if (ex.getCause() instanceof TopicExistsException) {
            System.out.println("exists " + e.getKey());
          } else {
            System.err.println("failed " + e.getKey() + ": " + ex.getCause());
            rc = 1;
          }
        }
      }
      if (rc == 0) {
        Set<String> want = new HashSet<>();
        for (NewTopic t : topics) want.add(t.name());
        long deadline = System.currentTimeMillis() + 30000;
        while (!admin.listTopics().names().get().containsAll(want)) {
          if (System.currentTimeMillis() > deadline) { System.err.println("topics not listed in time"); rc = 1; break; }
          Thread.sleep(100);
        }
      }
    }
    System.exit(rc);
  }

  private static void usage() {
    System.err.println("usage: Topics BROKERS [-p PARTITIONS] [-c key=value]... TOPIC[:PARTITIONS]...");
    System.exit(2);
  }
}
