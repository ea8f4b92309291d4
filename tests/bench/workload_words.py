"""The word lists and names the benchmark workload is made of (tests/bench/workload.py).

Data, not code: the generator's output depends on every entry and its position, so the lists
match the standard workload's generator entry for entry. `COMMON` is roughly frequency-ordered
general English; `JARGON` the topical tail; `NON_ASCII` names with diacritics and other scripts
(an underscore stands for a space).
"""

from __future__ import annotations


def _words(text: str) -> list[str]:
    return text.split()


COMMON = _words(
    """
the of and to a in is that for it as was with be by on not he this are or his from at
which but have an they you were her all she there would their we him been has when who
will more no if out so said what up its about into than them can only other new some
could time these two may then do first any my now such like our over man me even most
made after also did many before must through back years where much your way well down
should because each just those people how too little state good very make world still
own see men work long get here between both life being under never day same another know
while last might us great old year off come since against go came right used take three
states himself few house use during without again place around however home small found
thought went say part once general high upon school every does got united left number
course war until always away something fact though water less public put think almost
hand enough far took head yet government system better set told nothing night end why
called did find going look asked later knew point next program city business give group
toward young days let room president side social given present several order national
possible rather second face per among form important often things looked early white case
john become large big need four within felt along children saw best church ever least
power development light thing seemed family interest want members mind country area others
done turned although open god service problem certain kind different thus began door help
means sense whole matter perhaps itself york times law human line above name example action
company hands local show whether five history gave today either act feet across taken past
quite anything having seen death experience body word half really week field car words
already themselves information tell together college shall money period held keep sure real
probably free seems political cannot behind miss question air office making brought whose
special heard major problems ago became federal study available known result street economic
boy position reason change south board individual job society areas west close turn love
community true court force full seem am wife future age voice center woman control common
policy necessary following front sometimes six girl clear further land run students provide
feel party able mother music education university child effect level stood military town
short morning total outside rate physical art map value weeks simply includes plan model
research data report project meeting notes team design review process product customer
market strategy budget release version feature issue bug test deploy server client network
database query index search cache memory performance latency throughput metric dashboard
schedule deadline milestone goal priority task sprint backlog roadmap proposal draft idea
summary decision question answer problem solution approach method analysis result finding
evidence source reference article paper book chapter section paragraph quote citation note
journal habit health sleep exercise nutrition running walking reading writing learning
practice skill focus energy mood stress recovery reflection gratitude weekend holiday travel
trip flight hotel city mountain river forest garden kitchen recipe coffee tea bread dinner
lunch breakfast friend colleague manager partner contract invoice payment account tax
finance savings investment portfolio stock bond risk return growth revenue cost profit
margin pricing sales marketing campaign launch channel audience content email newsletter
website blog post video podcast interview conference talk workshop lecture course lesson
homework exam grade student teacher school library archive folder file document template
checklist outline framework principle pattern concept theory hypothesis experiment sample
measurement observation variable parameter function class object module package library
interface protocol request response error exception warning log trace debug config setting
option feature flag rollout migration upgrade backup restore security privacy access
permission user admin role token session login password key secret certificate encryption
"""
)

JARGON = _words(
    """
kubernetes idempotent heuristic photosynthesis mitochondria eigenvalue bayesian stochastic
asynchronous serialization deserialization tokenizer embedding transformer gradient
backpropagation regularization overfitting dropout convolution recurrent attention
quaternion topology homomorphism isomorphism manifold tensor jacobian hessian laplacian
fourier wavelet entropy thermodynamics enthalpy isotope neutrino quasar nebula exoplanet
perihelion tectonic sediment igneous basalt granite permafrost monsoon estuary mangrove
phylogeny genome ribosome enzyme catalyst polymer isomer oxidation electrolysis titration
sonnet iambic allegory metaphor synecdoche hermeneutics epistemology ontology teleology
phenomenology existentialism utilitarianism deontology stoicism zettelkasten pomodoro
kanban retrospective standup okr kpi churn cohort funnel onboarding runbook postmortem
incident pager oncall failover replication sharding consensus raft paxos quorum leader
follower snapshot compaction tombstone checksum idempotency backpressure debounce throttle
websocket grpc protobuf graphql webhook oauth saml jwt csrf cors nginx haproxy terraform
ansible prometheus grafana opentelemetry elasticsearch postgres sqlite redis kafka rabbitmq
celery asyncio uvicorn starlette fastapi pydantic pytest mypy ruff docker podman systemd
cron rsync borg restic zfs btrfs ext4 inode mmap fsync wal mvcc btree lsm bloom trie
levenshtein jaccard cosine bm25 tfidf stemming lemmatization ngram trigram fuzzy regex
unicode utf8 normalization diacritics transliteration collation locale timezone
sourdough fermentation espresso aeropress chemex pourover matcha kombucha kimchi miso
tempeh quinoa lentil chickpea turmeric cardamom saffron sumac zaatar harissa gochujang
marathon triathlon kettlebell deadlift squat mobility plyometrics vo2max zone2 cadence
meditation mindfulness journaling breathwork circadian melatonin caffeine hydration
"""
)

NON_ASCII = _words(
    """
café naïve résumé façade Zürich São_Paulo Kraków Malmö Ærøskøbing crème_brûlée jalapeño
piñata über straße Ελληνικά кириллица Москва 東京 日本語 中文 한국어 العربية עברית
déjà_vu coöperate señor año mañana smörgåsbord fjörður Þingvellir Łódź Dvořák Škoda
"""
)

EMOJI = ["✅", "🚀", "📌", "💡", "⚠️", "🔥", "📚", "🧪", "🎯", "🌱"]

TOPICS = {
    "alpha": "project release roadmap milestone deadline sprint backlog feature bug deploy",
    "beta": "research paper hypothesis experiment sample measurement analysis result theory",
    "gamma": "database query index search cache latency throughput performance server",
    "delta": "health sleep exercise nutrition running habit recovery stress mood energy",
    "epsilon": "finance budget invoice payment tax savings investment portfolio risk revenue",
    "zeta": "reading book chapter article quote citation writing learning course lecture",
    "eta": "travel trip flight hotel city mountain river forest holiday weekend",
    "theta": "recipe kitchen coffee tea bread dinner lunch breakfast garden fermentation",
    "iota": "security privacy access permission token session password key encryption",
    "kappa": "marketing campaign launch channel audience content newsletter website podcast",
}
PROJECTS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
AREAS = [
    "health/sleep",
    "health/fitness",
    "work/hiring",
    "work/ops",
    "home/garden",
    "home/finance",
    "learning/math",
    "learning/languages",
    "writing/blog",
    "people",
]
STATUSES = ["draft", "active", "review", "done", "archived", "blocked", "idea"]
HEADINGS = [
    "Overview",
    "Background",
    "Context",
    "Details",
    "Decisions",
    "Open Questions",
    "Next Steps",
    "Action Items",
    "References",
    "Summary",
    "Log",
    "Ideas",
    "Risks",
    "Results",
    "Discussion",
    "Notes",
    "Resources",
    "Timeline",
    "Problems",
    "Lessons",
]
TITLE_NOUNS = [
    "Notes",
    "Plan",
    "Review",
    "Ideas",
    "Log",
    "Summary",
    "Draft",
    "Meeting",
    "Retrospective",
    "Checklist",
    "Research",
    "Roadmap",
    "Journal",
    "Outline",
    "Analysis",
    "Proposal",
    "Design",
    "Reading",
    "Recipe",
    "Guide",
]
LANGS = ["python", "javascript", "bash", "sql", "yaml", "json", "rust", "go"]

# Syllables of the pseudo-word tail (rare names and code names).
ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "qu", "r", "s", "t", "v", "w", "z"]
ONSETS += ["br", "cr", "dr", "fl", "gr", "pl", "st", "tr", "sh", "th"]
NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "io", "y"]
CODAS = ["", "n", "r", "s", "x", "l", "m", "nt", "st", "rk", "th", "nd"]

PROJECT_SUBFOLDERS = ["Specs", "Meetings", "Research", "Tasks", "Archive"]
WORKFLOW_TAGS = ["todo", "idea", "question", "important", "waiting", "someday"]
AUTHORS = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Zoë Müller", "José Núñez", "山田太郎"]
CALLOUTS = ["note", "tip", "warning", "info", "quote", "todo"]
QUOTED = ["Ada Lovelace", "Marcus Aurelius", "Zoë Müller", "Ibn Khaldun", "紫式部"]
