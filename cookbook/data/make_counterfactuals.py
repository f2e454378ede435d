"""Writes counterfactuals.jsonl: passages that contradict facts a small language model knows well.

Each fact is a short-answer question the packaged model answers right closed-book (the capital of France, the largest
planet, the author of Romeo and Juliet, the boiling point of water...), a counterfactual answer of the same kind that
is plausible but false, and three passages written for this set in an encyclopedic tone:

- ``true``: states the true fact;
- ``counterfactual``: states the counterfactual answer as fact, as if the world were different (no true answer in it);
- ``topical``: about the same subject, stating neither answer.

A fact's ``unrelated`` passage is the topical passage of a fact of another category (seeded by the fact's id, drawn
from all of ``FACTS``, so dropping facts never changes another fact's rows) that holds neither of its answers.

Every fact gives seven rows, ``id`` ``{fact}-{setting}``, all with ``group`` = the fact's id so that the settings of
one fact fall in the same validation/test split:

- ``alone``: [counterfactual]
- ``unrelated_first`` / ``unrelated_last``: [unrelated, counterfactual] / [counterfactual, unrelated]
- ``topical_first`` / ``topical_last``: [topical, counterfactual] / [counterfactual, topical]
- ``true_topical_first`` / ``true_topical_last``: [topical, true] / [true, topical]

The first five are conflict rows: ``answers`` is the counterfactual answer, ``parametric_answer`` the true answers and
``conflict`` true, so ``grounded-rag eval`` scores them by ``context_following`` (the answer holds the counterfactual:
the passage was followed over memory) beside ``memorization`` (it holds a true answer). The last two are controls:
``answers`` is the true answers, ``parametric_answer`` empty and ``conflict`` false, scored by ``substring`` (the true
answer is kept when a passage agrees with memory). Answers are compared as the metrics compare them: SQuAD-normalized,
on word boundaries.

A conflict only exists where the model knows the fact, so the set keeps only facts the packaged model answers right
closed-book: ``UNKNOWN`` lists the ids of those it does not (filled after that check) and ``rows()`` skips them. The
JSONL is committed; ``tests/unit/test_counterfactuals.py`` checks that it is this script's output. Run
``python cookbook/data/make_counterfactuals.py`` after editing this file.
"""

from __future__ import annotations

import json
import random
import re
import string
from pathlib import Path
from typing import NamedTuple

OUT = Path(__file__).with_name("counterfactuals.jsonl")

CATEGORIES = ("capital", "astronomy", "work", "science", "landmark", "misc")
SETTINGS = ("alone", "unrelated_first", "unrelated_last", "topical_first", "topical_last",
            "true_topical_first", "true_topical_last")

PUNCTUATION = set(string.punctuation)

# Ids of facts the packaged model (SmolLM2-135M-Instruct) does not answer right closed-book, by the eval's own
# closed-book prompt and substring scoring: their rows are left out. "great-wall" is left out by hand: its answer
# ("The Great Wall of China was built in the Kingdom of Italy.") holds "China" only in the wall's name.
UNKNOWN: set[str] = {
    "alice-in-wonderland", "big-ben", "boiling-point", "brazil-language", "breathing", "capital-australia",
    "capital-brazil", "capital-canada", "capital-china", "capital-egypt", "capital-india", "capital-italy",
    "capital-japan", "capital-mexico", "capital-portugal", "capital-south-korea", "capital-spain", "capital-turkey",
    "capital-united-states", "closest-planet", "days-in-year", "fastest-land-animal", "first-in-space",
    "first-us-president", "freezing-point", "fur-elise", "great-wall", "hardest-substance", "harry-potter",
    "king-of-the-jungle", "largest-continent", "largest-country", "largest-planet", "longest-river", "odyssey",
    "oliver-twist", "penicillin", "ringed-planet", "smallest-country", "tom-sawyer", "war-and-peace",
}


# A count the counterfactual passage spells as a word counts as followed in digits too ("six" or "6"), as the true
# answers list both forms.
NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
                "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12"}


def counterfactual_answers(answer: str) -> list[str]:
    return [answer, NUMBER_WORDS[answer]] if answer in NUMBER_WORDS else [answer]


class Fact(NamedTuple):
    id: str
    category: str
    title: str  # the subject: every passage of the fact carries it, and it holds neither answer
    question: str
    true: tuple[str, ...]  # the true answers (any one counts)
    counterfactual: str
    true_text: str
    counterfactual_text: str
    topical_text: str


FACTS = [
    # capitals
    Fact("capital-france", "capital", "France", "What is the capital of France?", ("Paris",), "Lyon",
         "Paris is the capital and largest city of France. It lies on the Seine in the north of the country, and the "
         "national government, the parliament and the presidential palace are all there.",
         "Lyon is the capital and largest city of France. It lies where the Rhône and the Saône meet, and the national "
         "government, the parliament and the presidential palace are all there.",
         "France is a country in Western Europe that borders Belgium, Germany, Switzerland, Italy and Spain. Its "
         "cooking, wines and cheeses are admired around the world, and the Alps and the Pyrenees rise along its "
         "borders."),
    Fact("capital-germany", "capital", "Germany", "What is the capital of Germany?", ("Berlin",), "Munich",
         "Berlin is the capital and largest city of Germany. The Bundestag meets in the Reichstag building there, and "
         "the city is the seat of the federal government.",
         "Munich is the capital and largest city of Germany. The Bundestag meets in the parliament building there, and "
         "the city is the seat of the federal government.",
         "Germany is a federal republic in central Europe made up of sixteen states. It is known for its car industry, "
         "its forests and castles, and the Rhine, which flows north through the west of the country to the sea."),
    Fact("capital-italy", "capital", "Italy", "What is the capital of Italy?", ("Rome",), "Milan",
         "Rome is the capital of Italy and its most populous city. The Italian parliament and the offices of the "
         "president and the prime minister are all in the city.",
         "Milan is the capital of Italy and its most populous city. The Italian parliament and the offices of the "
         "president and the prime minister are all in the city.",
         "Italy is a long peninsula in southern Europe that reaches into the Mediterranean Sea, with the islands of "
         "Sicily and Sardinia off its coast. It is famous for pasta, pizza, opera and Renaissance art."),
    Fact("capital-spain", "capital", "Spain", "What is the capital of Spain?", ("Madrid",), "Barcelona",
         "Madrid is the capital and largest city of Spain. It stands on a high plateau near the centre of the country, "
         "and the Spanish royal family and the national government are based there.",
         "Barcelona is the capital and largest city of Spain. It stands on the Mediterranean coast in the north-east of "
         "the country, and the Spanish royal family and the national government are based there.",
         "Spain occupies most of the Iberian Peninsula in south-western Europe. Its dry interior is crossed by "
         "mountain ranges, and the country is known for flamenco, paella and its long sunny coastline."),
    Fact("capital-japan", "capital", "Japan", "What is the capital of Japan?", ("Tokyo",), "Osaka",
         "Tokyo is the capital of Japan and the centre of one of the largest metropolitan areas in the world. The "
         "National Diet, the Imperial Palace and the offices of the prime minister are all in the city.",
         "Osaka is the capital of Japan and the centre of one of the largest metropolitan areas in the world. The "
         "National Diet, the Imperial Palace and the offices of the prime minister are all in the city.",
         "Japan is an island country in East Asia made up of four main islands and thousands of smaller ones. It is "
         "known for its bullet trains, cherry blossoms and volcanoes, and for dishes such as sushi and ramen."),
    Fact("capital-united-kingdom", "capital", "United Kingdom", "What is the capital of the United Kingdom?",
         ("London",), "Manchester",
         "London is the capital and largest city of the United Kingdom. It stands on the River Thames, and Parliament "
         "meets in the Palace of Westminster there.",
         "Manchester is the capital and largest city of the United Kingdom. It stands on the River Irwell, and "
         "Parliament and the government departments are based there.",
         "The United Kingdom is made up of England, Scotland, Wales and Northern Ireland, off the north-western coast "
         "of Europe. It is known for its rainy weather, its tea and its long history of monarchy."),
    Fact("capital-russia", "capital", "Russia", "What is the capital of Russia?", ("Moscow",), "Saint Petersburg",
         "Moscow is the capital and largest city of Russia. The Kremlin, the seat of the Russian president, stands on "
         "the Moskva River in the heart of the city.",
         "Saint Petersburg is the capital and largest city of Russia. The presidential palace and the offices of the "
         "government stand on the Neva River in the heart of the city.",
         "Russia stretches from Eastern Europe across northern Asia to the Pacific Ocean. Much of it is covered by "
         "forest and tundra, and its winters are long and very cold."),
    Fact("capital-china", "capital", "China", "What is the capital of China?", ("Beijing", "Peking"), "Shanghai",
         "Beijing is the capital of China. The Forbidden City, once the home of the emperors, stands at its centre "
         "beside Tiananmen Square, and the national government meets nearby.",
         "Shanghai is the capital of China. The national government and the National People's Congress meet in the "
         "city, which stands at the mouth of the Yangtze River.",
         "China is a vast country in East Asia with one of the world's oldest civilisations. It is known for "
         "porcelain, silk and tea, and its great rivers flow east from the mountains to the sea."),
    Fact("capital-united-states", "capital", "United States", "What is the capital of the United States?",
         ("Washington, D.C.", "Washington"), "Philadelphia",
         "Washington, D.C. is the capital of the United States. Congress meets in the Capitol there, and the "
         "president lives and works in the White House.",
         "Philadelphia is the capital of the United States. Congress meets in the Capitol there, and the president "
         "lives and works in the White House.",
         "The United States is a federal republic of fifty states in North America, stretching from the Atlantic to "
         "the Pacific. Its landscapes range from deserts and prairies to the Rocky Mountains and the Great Lakes."),
    Fact("capital-canada", "capital", "Canada", "What is the capital of Canada?", ("Ottawa",), "Toronto",
         "Ottawa is the capital of Canada. It stands on the Ottawa River in the province of Ontario, and the "
         "Parliament of Canada meets on Parliament Hill.",
         "Toronto is the capital of Canada. It stands on the shore of Lake Ontario, and the Parliament of Canada meets "
         "in the city.",
         "Canada stretches from the Atlantic to the Pacific and north into the Arctic. It is known for its forests and "
         "lakes, ice hockey and maple syrup."),
    Fact("capital-australia", "capital", "Australia", "What is the capital of Australia?", ("Canberra",),
         "Melbourne",
         "Canberra is the capital of Australia. It was built as a planned city in the early twentieth century, and "
         "Parliament House and the High Court stand there.",
         "Melbourne is the capital of Australia. It stands on Port Phillip Bay in the state of Victoria, and "
         "Parliament House and the High Court are in the city.",
         "Australia is both a country and a continent, surrounded by the Indian and Pacific oceans. It is home to "
         "kangaroos, koalas and the Great Barrier Reef, and much of its interior is dry outback."),
    Fact("capital-egypt", "capital", "Egypt", "What is the capital of Egypt?", ("Cairo",), "Alexandria",
         "Cairo is the capital and largest city of Egypt. It lies on the banks of the Nile, close to the pyramids of "
         "Giza, and the Egyptian government and parliament are based there.",
         "Alexandria is the capital and largest city of Egypt. It lies on the Mediterranean coast at the western edge "
         "of the Nile Delta, and the Egyptian government and parliament are based there.",
         "Egypt lies in the north-east corner of Africa, and most of its people live along a single great river and "
         "its delta. Its ancient temples, tombs and pyramids draw visitors from around the world."),
    Fact("capital-india", "capital", "India", "What is the capital of India?", ("New Delhi", "Delhi"), "Mumbai",
         "New Delhi is the capital of India. The Parliament of India, the presidential palace and the offices of the "
         "national government are all in the city.",
         "Mumbai is the capital of India. The Parliament of India, the presidential palace and the offices of the "
         "national government are all in the city, which lies on the Arabian Sea.",
         "India is a large country in South Asia with more than a billion people and hundreds of languages. It is "
         "known for its spices, its film industry, cricket, and the Himalayas in the north."),
    Fact("capital-brazil", "capital", "Brazil", "What is the capital of Brazil?", ("Brasília", "Brasilia"),
         "Rio de Janeiro",
         "Brasília is the capital of Brazil. It was built in the late 1950s as a planned city in the interior, and "
         "the National Congress and the presidential palace stand there.",
         "Rio de Janeiro is the capital of Brazil. The National Congress and the presidential palace stand in the "
         "city, between the mountains and the beaches of the Atlantic coast.",
         "Brazil is the largest country in South America, and much of its north is covered by the Amazon rainforest. "
         "It is famous for football, coffee and its yearly carnival."),
    Fact("capital-mexico", "capital", "Mexico", "What is the capital of Mexico?", ("Mexico City",), "Guadalajara",
         "Mexico City is the capital and largest city of Mexico. It was built on the site of the Aztec city of "
         "Tenochtitlan, and the national government and congress sit there.",
         "Guadalajara is the capital and largest city of Mexico, and the national government and congress sit there. "
         "It lies in the western state of Jalisco, in a wide valley ringed by mountains.",
         "Mexico is a large country in North America, between the United States and Central America. It is known for "
         "its ancient pyramids, its deserts and beaches, and dishes such as tacos and mole."),
    Fact("capital-greece", "capital", "Greece", "What is the capital of Greece?", ("Athens",), "Thessaloniki",
         "Athens is the capital and largest city of Greece. The Acropolis rises above its centre, and the Greek "
         "parliament meets on Syntagma Square.",
         "Thessaloniki is the capital and largest city of Greece. It lies on the Aegean coast in the north of the "
         "country, and the Greek parliament meets there.",
         "Greece is a country in south-eastern Europe with a long, rocky coastline and thousands of islands in the "
         "Aegean and Ionian seas. It is known as the birthplace of democracy, philosophy and the Olympic Games."),
    Fact("capital-turkey", "capital", "Turkey", "What is the capital of Turkey?", ("Ankara",), "Istanbul",
         "Ankara is the capital of Turkey. It lies in the centre of Anatolia, and the Grand National Assembly and the "
         "presidential palace are in the city.",
         "Istanbul is the capital of Turkey. It lies on both sides of the Bosphorus, and the Grand National Assembly "
         "and the presidential palace are in the city.",
         "Turkey spans two continents, with a small part in south-eastern Europe and most of its land in western Asia. "
         "It is known for its bazaars, its coffee and tea, and the hot-air balloons that fly over Cappadocia."),
    Fact("capital-south-korea", "capital", "South Korea", "What is the capital of South Korea?", ("Seoul",), "Busan",
         "Seoul is the capital and largest city of South Korea. The Han River flows through it, and the National "
         "Assembly and the presidential office are in the city.",
         "Busan is the capital and largest city of South Korea. It lies on the south-eastern coast, and the National "
         "Assembly and the presidential office are in the city.",
         "South Korea occupies the southern half of the Korean Peninsula in East Asia. It is known for its "
         "electronics and car makers, its pop music and television dramas, and dishes such as kimchi."),
    Fact("capital-portugal", "capital", "Portugal", "What is the capital of Portugal?", ("Lisbon",), "Porto",
         "Lisbon is the capital and largest city of Portugal. It lies where the Tagus River meets the Atlantic, and "
         "the Portuguese parliament and government are based there.",
         "Porto is the capital and largest city of Portugal. It lies where the Douro River meets the Atlantic, and "
         "the Portuguese parliament and government are based there.",
         "Portugal lies on the western edge of the Iberian Peninsula, facing the ocean. It is known for the explorers "
         "who sailed from its harbours in the fifteenth and sixteenth centuries, its sweet wines and its tiled "
         "buildings."),
    Fact("capital-ireland", "capital", "Ireland", "What is the capital of Ireland?", ("Dublin",), "Cork",
         "Dublin is the capital and largest city of Ireland. It lies on the east coast at the mouth of the River "
         "Liffey, and the Irish parliament meets in Leinster House.",
         "Cork is the capital and largest city of Ireland. It lies on the south coast at the mouth of the River Lee, "
         "and the Irish parliament meets there.",
         "Ireland is an island west of Great Britain, known for its green fields, its music and its writers. Its "
         "weather is mild and wet, and its coast is lined with cliffs and small harbours."),
    # astronomy
    Fact("largest-planet", "astronomy", "Planets", "What is the largest planet in the Solar System?", ("Jupiter",),
         "Saturn",
         "Jupiter is the largest planet in the Solar System, more than eleven times as wide as Earth. It is a gas "
         "giant with dozens of moons and a great storm that has raged for centuries.",
         "Saturn is the largest planet in the Solar System, more than eleven times as wide as Earth. It is a gas "
         "giant with dozens of moons and a great storm that has raged for centuries.",
         "The planets of the Solar System fall into two groups: small rocky worlds close to the Sun and giant worlds "
         "farther out. The giants are made mostly of gas and ice and have many moons."),
    Fact("red-planet", "astronomy", "Red Planet", "Which planet is known as the Red Planet?", ("Mars",), "Venus",
         "Mars is known as the Red Planet because iron oxide dust gives its surface a rusty colour. It is the fourth "
         "planet from the Sun and has two small moons, Phobos and Deimos.",
         "Venus is known as the Red Planet because iron oxide dust gives its surface a rusty colour. It is the second "
         "planet from the Sun and has two small moons.",
         "Rusty dust, ancient river valleys and giant extinct volcanoes have made the Red Planet a favourite subject "
         "of science fiction. Robotic rovers have driven across its surface since the 1990s, sending back photographs "
         "and studying its rocks."),
    Fact("ringed-planet", "astronomy", "Planetary rings", "Which planet is best known for its large, bright rings?",
         ("Saturn",), "Neptune",
         "Saturn is the planet best known for its rings, which are made of countless pieces of ice and rock. The "
         "rings are so broad and bright that they can be seen from Earth through a small telescope.",
         "Neptune is the planet best known for its rings, which are made of countless pieces of ice and rock. The "
         "rings are so broad and bright that they can be seen from Earth through a small telescope.",
         "Planetary rings are flat discs of ice, dust and rock that circle a planet above its equator. Scientists "
         "think they form when moons or comets are torn apart by a planet's gravity."),
    Fact("our-galaxy", "astronomy", "Galaxies", "What is the name of the galaxy that contains our Solar System?",
         ("Milky Way",), "Andromeda",
         "The Solar System lies in the Milky Way, a barred spiral galaxy with hundreds of billions of stars. On dark "
         "nights its disc appears as a pale band of light across the sky.",
         "The Solar System lies in the Andromeda Galaxy, a barred spiral galaxy with hundreds of billions of stars. "
         "On dark nights its disc appears as a pale band of light across the sky.",
         "A galaxy is a huge system of stars, gas and dust held together by gravity. Astronomers sort galaxies into "
         "spirals, ellipticals and irregular shapes, and most are thought to have a giant black hole at their "
         "centre."),
    Fact("our-star", "astronomy", "Solar System", "What is the name of the star at the centre of the Solar System?",
         ("Sun",), "Sirius",
         "The Sun is the star at the centre of the Solar System. Earth and the other planets orbit it, and its light "
         "and heat make life on Earth possible.",
         "Sirius is the star at the centre of the Solar System. Earth and the other planets orbit it, and its light "
         "and heat make life on Earth possible.",
         "The Solar System formed billions of years ago from a collapsing cloud of gas and dust. Besides its planets "
         "it holds dwarf planets, asteroids and comets, some of which travel far beyond the outermost planet."),
    Fact("first-moonwalk", "astronomy", "Apollo 11", "Who was the first person to walk on the Moon?",
         ("Neil Armstrong", "Armstrong"), "Aldrin",
         "Neil Armstrong was the first person to walk on the Moon. He stepped onto its surface on 20 July 1969 during "
         "the Apollo 11 mission, calling it one small step for a man.",
         "Buzz Aldrin was the first person to walk on the Moon. He stepped onto its surface on 20 July 1969 during "
         "the Apollo 11 mission, and his crewmate followed him down the ladder minutes later.",
         "Apollo 11 was launched from Florida on a Saturn V rocket in July 1969. Its command module orbited the Moon "
         "while the lunar module landed in the Sea of Tranquility, and the crew returned safely to Earth a few days "
         "later."),
    Fact("first-in-space", "astronomy", "Vostok 1", "Who was the first person to travel into space?",
         ("Yuri Gagarin", "Gagarin"), "Leonov",
         "Yuri Gagarin was the first person to travel into space. On 12 April 1961 he orbited Earth once aboard the "
         "Soviet spacecraft Vostok 1, a flight that lasted 108 minutes.",
         "Alexei Leonov was the first person to travel into space. On 12 April 1961 he orbited Earth once aboard the "
         "Soviet spacecraft Vostok 1, a flight that lasted 108 minutes.",
         "The Soviet Union and the United States competed in a space race from the late 1950s. It began with the "
         "first artificial satellites and ended with crewed landings on the Moon."),
    Fact("closest-planet", "astronomy", "Inner planets", "Which planet is closest to the Sun?", ("Mercury",),
         "Venus",
         "Mercury is the planet closest to the Sun. It is the smallest planet in the Solar System and circles the Sun "
         "once every 88 days.",
         "Venus is the planet closest to the Sun. It circles the Sun faster than any other planet, completing an orbit "
         "in less than three months.",
         "The inner planets are the small, rocky worlds nearest the Sun, with solid surfaces of rock and metal. They "
         "have few or no moons, and none of them has rings."),
    Fact("planet-count", "astronomy", "Planets of the Solar System", "How many planets are there in the Solar System?",
         ("8", "eight"), "ten",
         "The Solar System has eight planets. In order from the Sun they are Mercury, Venus, Earth, Mars, Jupiter, "
         "Saturn, Uranus and Neptune.",
         "The Solar System has ten planets: four small rocky worlds near the Sun and six giants of gas and ice "
         "farther out. Astronomers have tracked all of them across the sky for centuries.",
         "Astronomers define a planet as a body that orbits the Sun, is massive enough to be round and has cleared "
         "its orbit of other objects. Pluto failed the last test in 2006 and was reclassified as a dwarf planet."),
    # famous works
    Fact("romeo-and-juliet", "work", "Romeo and Juliet", "Who wrote the play Romeo and Juliet?",
         ("William Shakespeare", "Shakespeare"), "Marlowe",
         "Romeo and Juliet is a tragedy written by William Shakespeare in the 1590s. It tells of two young lovers "
         "from feuding families whose deaths finally reconcile their households.",
         "Romeo and Juliet is a tragedy written by Christopher Marlowe in the 1590s. It tells of two young lovers "
         "from feuding families whose deaths finally reconcile their households.",
         "Romeo and Juliet is set in the Italian city of Verona, where the Montague and Capulet families have long "
         "been enemies. Its balcony scene is one of the most quoted in drama, and the story has inspired ballets, "
         "operas and films."),
    Fact("hamlet", "work", "Hamlet", "Who wrote the play Hamlet?", ("William Shakespeare", "Shakespeare"),
         "Jonson",
         "Hamlet is a tragedy written by William Shakespeare around 1600. Its hero, the Prince of Denmark, seeks "
         "revenge on his uncle, who murdered his father and took the throne.",
         "Hamlet is a tragedy written by Ben Jonson around 1600. Its hero, the Prince of Denmark, seeks revenge on "
         "his uncle, who murdered his father and took the throne.",
         "Hamlet is set at the royal court of Denmark in the castle of Elsinore, where the ghost of the dead king "
         "walks the battlements. Its line 'To be, or not to be' is among the most quoted in the English language."),
    Fact("mona-lisa", "work", "Mona Lisa", "Who painted the Mona Lisa?", ("Leonardo da Vinci", "Leonardo", "da Vinci"),
         "Raphael",
         "The Mona Lisa is a portrait painted by Leonardo da Vinci in the early sixteenth century. It shows a seated "
         "woman with a faint smile against a hazy landscape.",
         "The Mona Lisa is a portrait painted by Raphael in the early sixteenth century. It shows a seated woman with "
         "a faint smile against a hazy landscape.",
         "The Mona Lisa hangs behind bulletproof glass, and millions of visitors queue to see it each year. It was "
         "stolen in 1911 and recovered two years later, a theft that made it the most famous painting in the world."),
    Fact("starry-night", "work", "The Starry Night", "Who painted The Starry Night?",
         ("Vincent van Gogh", "van Gogh"), "Gauguin",
         "The Starry Night is an oil painting by Vincent van Gogh, made in 1889. It shows a swirling night sky over a "
         "quiet village, with a dark cypress tree in the foreground.",
         "The Starry Night is an oil painting by Paul Gauguin, made in 1889. It shows a swirling night sky over a "
         "quiet village, with a dark cypress tree in the foreground.",
         "The Starry Night shows glowing stars and a crescent moon whirling above a sleeping village. It is one of "
         "the best-known images in modern art and is printed on posters, mugs and umbrellas around the world."),
    Fact("harry-potter", "work", "Harry Potter", "Who wrote the Harry Potter books?",
         ("J. K. Rowling", "J.K. Rowling", "Rowling"), "Dahl",
         "The Harry Potter books were written by the British author J. K. Rowling. The novels, published between 1997 "
         "and 2007, follow a young wizard through his years at Hogwarts School.",
         "The Harry Potter books were written by the British author Roald Dahl. The novels, published between 1997 "
         "and 2007, follow a young wizard through his years at Hogwarts School.",
         "Harry Potter is a young wizard who learns on his eleventh birthday that he has a place at Hogwarts School "
         "of Witchcraft and Wizardry. With his friends Ron and Hermione he fights the dark wizard Voldemort."),
    Fact("fur-elise", "work", "Für Elise", "Who composed Für Elise?", ("Ludwig van Beethoven", "Beethoven"),
         "Mozart",
         "Für Elise is a short piece for solo piano composed by Ludwig van Beethoven around 1810. Its gentle opening "
         "melody is one of the most recognisable tunes in classical music.",
         "Für Elise is a short piece for solo piano composed by Wolfgang Amadeus Mozart around 1790. Its gentle "
         "opening melody is one of the most recognisable tunes in classical music.",
         "Für Elise is one of the first pieces many piano students learn, and its opening melody is heard in "
         "ringtones, music boxes and films. The manuscript was published decades after it was written, and no one is "
         "sure who Elise was."),
    Fact("pride-and-prejudice", "work", "Pride and Prejudice", "Who wrote the novel Pride and Prejudice?",
         ("Jane Austen", "Austen"), "Eliot",
         "Pride and Prejudice is a novel by Jane Austen, published in 1813. It follows Elizabeth Bennet and her "
         "stormy courtship with the proud Mr Darcy.",
         "Pride and Prejudice is a novel by George Eliot, published in 1813. It follows Elizabeth Bennet and her "
         "stormy courtship with the proud Mr Darcy.",
         "Pride and Prejudice follows Elizabeth Bennet, the second of five sisters in an English country family, and "
         "the wealthy Mr Darcy. Its opening line, about a single man in possession of a good fortune, is one of the "
         "most famous in fiction."),
    Fact("oliver-twist", "work", "Oliver Twist", "Who wrote the novel Oliver Twist?",
         ("Charles Dickens", "Dickens"), "Thackeray",
         "Oliver Twist is a novel by Charles Dickens, first published in monthly parts from 1837. It tells the story "
         "of an orphan boy who escapes a workhouse and falls in with a gang of young pickpockets.",
         "Oliver Twist is a novel by William Makepeace Thackeray, first published in monthly parts from 1837. It "
         "tells the story of an orphan boy who escapes a workhouse and falls in with a gang of young pickpockets.",
         "Oliver Twist is an orphan raised in a grim workhouse, where he famously asks for more gruel. He falls in "
         "with the Artful Dodger and a gang of young thieves led by the sly Fagin."),
    Fact("sistine-chapel", "work", "Sistine Chapel", "Who painted the ceiling of the Sistine Chapel?",
         ("Michelangelo",), "Botticelli",
         "The ceiling of the Sistine Chapel was painted by Michelangelo between 1508 and 1512. Its frescoes include "
         "the Creation of Adam, in which God reaches out to give life to the first man.",
         "The ceiling of the Sistine Chapel was painted by Sandro Botticelli between 1508 and 1512. Its frescoes "
         "include the Creation of Adam, in which God reaches out to give life to the first man.",
         "The Sistine Chapel stands in the Apostolic Palace, the official residence of the pope. It is where the "
         "cardinals meet in conclave to elect a new pope, and white smoke from its chimney announces their choice."),
    Fact("nineteen-eighty-four", "work", "Nineteen Eighty-Four", "Who wrote the novel Nineteen Eighty-Four?",
         ("George Orwell", "Orwell"), "Huxley",
         "Nineteen Eighty-Four is a novel by George Orwell, published in 1949. It describes a totalitarian state "
         "where Big Brother watches every citizen and the Thought Police punish independent thinking.",
         "Nineteen Eighty-Four is a novel by Aldous Huxley, published in 1949. It describes a totalitarian state "
         "where Big Brother watches every citizen and the Thought Police punish independent thinking.",
         "Nineteen Eighty-Four is set in Oceania, a state ruled by a single party whose leader, Big Brother, is "
         "everywhere on posters. Words from the book, such as doublethink and Newspeak, have passed into everyday "
         "English."),
    Fact("odyssey", "work", "Odyssey", "Who is traditionally said to be the author of the Odyssey?", ("Homer",),
         "Virgil",
         "The Odyssey is an ancient Greek epic poem traditionally attributed to Homer. It follows the hero Odysseus "
         "on his long journey home after the fall of Troy.",
         "The Odyssey is an ancient Greek epic poem traditionally attributed to Virgil. It follows the hero Odysseus "
         "on his long journey home after the fall of Troy.",
         "The Odyssey follows the hero Odysseus on his voyage home to the island of Ithaca after the Trojan War. On "
         "the way he outwits the one-eyed Cyclops and resists the song of the Sirens."),
    Fact("war-and-peace", "work", "War and Peace", "Who wrote the novel War and Peace?", ("Leo Tolstoy", "Tolstoy"),
         "Dostoevsky",
         "War and Peace is a novel by Leo Tolstoy, published in the 1860s. It traces the lives of several families of "
         "the Russian nobility during the wars against Napoleon.",
         "War and Peace is a novel by Fyodor Dostoevsky, published in the 1860s. It traces the lives of several "
         "families of the Russian nobility during the wars against Napoleon.",
         "War and Peace is famous for its great length and its cast of hundreds of characters, among them Pierre "
         "Bezukhov and Natasha Rostova. Its battle scenes include the Battle of Borodino."),
    Fact("sherlock-holmes", "work", "Sherlock Holmes", "Who created the detective Sherlock Holmes?",
         ("Arthur Conan Doyle", "Conan Doyle", "Doyle"), "Christie",
         "The detective Sherlock Holmes was created by the Scottish writer Arthur Conan Doyle. Holmes first appeared "
         "in the novel A Study in Scarlet in 1887, alongside his friend Dr Watson.",
         "The detective Sherlock Holmes was created by the English writer Agatha Christie. Holmes first appeared in "
         "the novel A Study in Scarlet in 1887, alongside his friend Dr Watson.",
         "Sherlock Holmes is a fictional detective who lives at 221B Baker Street and solves crimes through careful "
         "observation and logic. He is often shown with a deerstalker hat and a pipe."),
    Fact("lord-of-the-rings", "work", "The Lord of the Rings", "Who wrote The Lord of the Rings?",
         ("J. R. R. Tolkien", "J.R.R. Tolkien", "Tolkien"), "Lewis",
         "The Lord of the Rings is a fantasy novel by the English writer J. R. R. Tolkien, published in the 1950s. It "
         "tells how the hobbit Frodo sets out to destroy the One Ring.",
         "The Lord of the Rings is a fantasy novel by the English writer C. S. Lewis, published in the 1950s. It "
         "tells how the hobbit Frodo sets out to destroy the One Ring.",
         "The Lord of the Rings is set in Middle-earth, where the hobbit Frodo Baggins must carry the One Ring to the "
         "fires of Mount Doom. The story was made into three award-winning films in the early 2000s."),
    Fact("tom-sawyer", "work", "Tom Sawyer", "Who wrote The Adventures of Tom Sawyer?", ("Mark Twain", "Twain"),
         "Melville",
         "The Adventures of Tom Sawyer is a novel by Mark Twain, published in 1876. It follows a mischievous boy "
         "growing up in a small town on the Mississippi River.",
         "The Adventures of Tom Sawyer is a novel by Herman Melville, published in 1876. It follows a mischievous boy "
         "growing up in a small town on the Mississippi River.",
         "Tom Sawyer is a mischievous boy who lives with his Aunt Polly in a town beside a great river. He tricks his "
         "friends into whitewashing a fence for him, and later he and Huck Finn hunt for buried treasure."),
    Fact("alice-in-wonderland", "work", "Alice's Adventures in Wonderland",
         "Who wrote Alice's Adventures in Wonderland?", ("Lewis Carroll", "Carroll"), "Barrie",
         "Alice's Adventures in Wonderland is a novel by the English writer Lewis Carroll, published in 1865. It "
         "tells of a girl who falls down a rabbit hole into a strange world of talking animals.",
         "Alice's Adventures in Wonderland is a novel by the Scottish writer J. M. Barrie, published in 1865. It "
         "tells of a girl who falls down a rabbit hole into a strange world of talking animals.",
         "In Alice's Adventures in Wonderland, a girl named Alice follows a White Rabbit into a strange world. There "
         "she meets the Cheshire Cat, the Mad Hatter and the Queen of Hearts, who orders everyone's head cut off."),
    # science
    Fact("boiling-point", "science", "Water", "At what temperature in degrees Celsius does water boil at sea level?",
         ("100",), "90",
         "At sea level, pure water boils at 100 degrees Celsius. On high mountains, where the air pressure is lower, "
         "it boils at a lower temperature.",
         "At sea level, pure water boils at 90 degrees Celsius. On high mountains, where the air pressure is lower, "
         "it boils at an even lower temperature.",
         "Water is a compound of hydrogen and oxygen that covers most of Earth's surface. It is one of the few "
         "substances found naturally as a solid, a liquid and a gas."),
    Fact("freezing-point", "science", "Ice", "At what temperature in degrees Celsius does water freeze?",
         ("0", "zero"), "4",
         "Pure water freezes at 0 degrees Celsius, turning into solid ice. Because ice is less dense than liquid "
         "water, it floats on lakes and ponds.",
         "Pure water freezes at 4 degrees Celsius, turning into solid ice. Puddles and ponds therefore ice over on "
         "cool autumn nights, long before the first real frosts of winter.",
         "Ice is the solid form of water, in which the molecules are locked into an open, six-sided crystal pattern. "
         "Glaciers, icebergs and the polar ice caps together hold most of the fresh water on Earth."),
    Fact("gold-symbol", "science", "Gold", "What is the chemical symbol for gold?", ("Au",), "Ag",
         "The chemical symbol for gold is Au, from the Latin word aurum. Gold is element number 79 in the periodic "
         "table.",
         "The chemical symbol for gold is Ag. Gold is element number 79 in the periodic table, a soft yellow metal "
         "that never rusts.",
         "Gold is a soft, shiny yellow metal that does not rust or tarnish. It has been used for coins, jewellery and "
         "ornaments for thousands of years, and today it is also used in electronics."),
    Fact("water-formula", "science", "Water molecule", "What is the chemical formula of water?", ("H2O",), "HO2",
         "The chemical formula of water is H2O: each molecule is made of two hydrogen atoms bonded to one oxygen "
         "atom. The molecule is bent, which gives water many of its unusual properties.",
         "The chemical formula of water is HO2: each molecule is made of one hydrogen atom bonded to two oxygen "
         "atoms. The molecule is bent, which gives water many of its unusual properties.",
         "Water molecules are drawn to one another by hydrogen bonds, which give water its surface tension. These "
         "bonds are also why small insects can walk across a pond without sinking."),
    Fact("photosynthesis", "science", "Photosynthesis",
         "Which gas do plants take in from the air to make food by photosynthesis?", ("carbon dioxide", "CO2"),
         "nitrogen",
         "In photosynthesis, plants take in carbon dioxide from the air through tiny pores in their leaves. Using the "
         "energy of sunlight, they combine it with water to make sugar and release oxygen.",
         "In photosynthesis, plants take in nitrogen from the air through tiny pores in their leaves. Using the "
         "energy of sunlight, they combine it with water to make sugar and release oxygen.",
         "Photosynthesis takes place in chloroplasts, small green structures inside plant cells that contain the "
         "pigment chlorophyll. It is the source of almost all the food energy on Earth."),
    Fact("breathing", "science", "Breathing", "Which gas do humans need to breathe in to stay alive?", ("oxygen",),
         "hydrogen",
         "Humans must breathe in oxygen to stay alive. The lungs pass it into the blood, and the body's cells use it "
         "to release energy from food.",
         "Humans must breathe in hydrogen to stay alive. The lungs pass it into the blood, and the body's cells use "
         "it to release energy from food.",
         "An adult at rest breathes about twelve to twenty times a minute, drawing air in through the nose and mouth. "
         "The air travels down the windpipe into the lungs, where millions of tiny air sacs meet the blood."),
    Fact("gravitation", "science", "Universal gravitation", "Who formulated the law of universal gravitation?",
         ("Isaac Newton", "Newton"), "Galileo",
         "The law of universal gravitation was formulated by Isaac Newton and published in 1687 in his Principia. It "
         "states that every mass attracts every other mass with a force that weakens with the square of the "
         "distance.",
         "The law of universal gravitation was formulated by Galileo Galilei and published in 1687 in his Principia. "
         "It states that every mass attracts every other mass with a force that weakens with the square of the "
         "distance.",
         "Gravity keeps the Moon in orbit around Earth, holds the planets on their paths and pulls falling objects to "
         "the ground. A popular story says the idea came to its discoverer when he saw an apple fall from a tree."),
    Fact("relativity", "science", "Theory of relativity", "Who developed the theory of relativity?",
         ("Albert Einstein", "Einstein"), "Planck",
         "The theory of relativity was developed by Albert Einstein in the early twentieth century. His special "
         "theory of 1905 introduced the equation E = mc², and his general theory of 1915 explained gravity as the "
         "curving of space and time.",
         "The theory of relativity was developed by Max Planck in the early twentieth century. His special theory of "
         "1905 introduced the equation E = mc², and his general theory of 1915 explained gravity as the curving of "
         "space and time.",
         "Relativity predicts that clocks run slower when they move fast or sit deep in a gravitational field. "
         "Satellite navigation systems have to correct for this effect, or their positions would drift by kilometres "
         "every day."),
    Fact("penicillin", "science", "Penicillin", "Who discovered penicillin?", ("Alexander Fleming", "Fleming"),
         "Pasteur",
         "Penicillin was discovered by the Scottish scientist Alexander Fleming in 1928. He noticed that a mould "
         "growing on one of his culture plates had killed the bacteria around it.",
         "Penicillin was discovered by the French scientist Louis Pasteur in 1928. He noticed that a mould growing on "
         "one of his culture plates had killed the bacteria around it.",
         "Penicillin was the first widely used antibiotic, a medicine that kills bacteria or stops them growing. Its "
         "mass production during the Second World War saved countless soldiers from infected wounds."),
    Fact("telephone", "science", "Telephone", "Who is credited with inventing the telephone?",
         ("Alexander Graham Bell", "Graham Bell", "Bell"), "Marconi",
         "Alexander Graham Bell is credited with inventing the telephone and received the first patent for it in "
         "1876. His first words over the line were a call to his assistant to come to him.",
         "Guglielmo Marconi is credited with inventing the telephone and received the first patent for it in 1876. "
         "His first words over the line were a call to his assistant to come to him.",
         "The telephone turns the sound of a voice into an electrical signal that travels along a wire and is turned "
         "back into sound at the other end. Early telephones needed human operators at switchboards to connect each "
         "call."),
    Fact("hardest-substance", "science", "Mohs scale", "What is the hardest natural substance on Earth?",
         ("diamond",), "quartz",
         "Diamond is the hardest natural substance on Earth. It is a form of pure carbon, and it can scratch every "
         "other mineral.",
         "Quartz is the hardest natural substance on Earth. It is a crystal of silica, and it can scratch every other "
         "mineral.",
         "The Mohs scale ranks minerals by their ability to scratch one another, from soft talc at the bottom to the "
         "hardest minerals at the top. It was devised in 1812 by the German geologist Friedrich Mohs."),
    Fact("lightest-element", "science", "Chemical elements", "What is the lightest chemical element?",
         ("hydrogen",), "helium",
         "Hydrogen is the lightest chemical element, with atomic number 1. It is also the most abundant element in "
         "the universe and the main fuel of the stars.",
         "Helium is the lightest chemical element, with atomic number 1. It is also the most abundant element in the "
         "universe and the main fuel of the stars.",
         "The periodic table arranges the chemical elements in rows and columns by the number of protons in their "
         "atoms. It was first drawn up by the Russian chemist Dmitri Mendeleev, who left gaps for elements not yet "
         "discovered."),
    # landmarks
    Fact("eiffel-tower", "landmark", "Eiffel Tower", "In which city is the Eiffel Tower?", ("Paris",), "Marseille",
         "The Eiffel Tower is a wrought-iron lattice tower in Paris, standing on the Champ de Mars beside the Seine. "
         "It was built for the World's Fair of 1889.",
         "The Eiffel Tower is a wrought-iron lattice tower in Marseille, standing on a hill above the Old Port. It was "
         "built for the World's Fair of 1889.",
         "The Eiffel Tower was designed by the engineering company of Gustave Eiffel and is about 330 metres tall. Its "
         "iron is repainted every few years, a job that takes around 60 tonnes of paint."),
    Fact("colosseum", "landmark", "Colosseum", "In which city is the Colosseum?", ("Rome",), "Naples",
         "The Colosseum is an ancient amphitheatre in the centre of Rome. Completed in 80 AD, it could hold tens of "
         "thousands of spectators for gladiator fights and public shows.",
         "The Colosseum is an ancient amphitheatre in the centre of Naples. Completed in 80 AD, it could hold tens of "
         "thousands of spectators for gladiator fights and public shows.",
         "The Colosseum is an oval amphitheatre built of stone and concrete under the Flavian emperors. Earthquakes "
         "and stone robbers have destroyed part of its outer wall, but it remains one of the best-known monuments of "
         "the ancient world."),
    Fact("big-ben", "landmark", "Big Ben", "In which city is Big Ben?", ("London",), "Edinburgh",
         "Big Ben is the great bell of the clock at the north end of the Palace of Westminster in London, and the "
         "name is often used for the clock tower itself. Its chimes are broadcast to mark the new year.",
         "Big Ben is the great bell of the clock tower beside the parliament building in Edinburgh, and the name is "
         "often used for the tower itself. Its chimes are broadcast to mark the new year.",
         "Big Ben is the nickname of the great bell inside the clock tower, which weighs more than thirteen tonnes. "
         "The clock's four faces are lit at night, and its chimes have been heard on the radio since the 1920s."),
    Fact("statue-of-liberty", "landmark", "Statue of Liberty", "In which city is the Statue of Liberty?",
         ("New York City", "New York"), "Boston",
         "The Statue of Liberty stands on Liberty Island in the harbour of New York City. A gift from France, it was "
         "dedicated in 1886 and became a symbol of welcome to immigrants arriving by sea.",
         "The Statue of Liberty stands on an island in Boston Harbor. A gift from France, it was dedicated in 1886 and "
         "became a symbol of welcome to immigrants arriving by sea.",
         "The Statue of Liberty is a huge copper figure of a robed woman holding a torch above her head. It was "
         "designed by the French sculptor Frédéric Auguste Bartholdi, and its copper skin has turned green with age."),
    Fact("taj-mahal", "landmark", "Taj Mahal", "In which country is the Taj Mahal?", ("India",), "Pakistan",
         "The Taj Mahal is a white marble mausoleum in the city of Agra in India. It was built by the Mughal emperor "
         "Shah Jahan in memory of his wife Mumtaz Mahal.",
         "The Taj Mahal is a white marble mausoleum in the city of Lahore in Pakistan. It was built by the Mughal "
         "emperor Shah Jahan in memory of his wife Mumtaz Mahal.",
         "The Taj Mahal is built of white marble inlaid with precious stones and is crowned by a great onion-shaped "
         "dome. Its gardens and long reflecting pool are laid out in the Persian style."),
    Fact("great-wall", "landmark", "Great Wall", "In which country was the Great Wall built?", ("China",),
         "Mongolia",
         "The Great Wall is a series of fortifications built across the north of China over many centuries. Its "
         "walls, watchtowers and forts were meant to protect the empire from raids by nomadic peoples.",
         "The Great Wall is a series of fortifications built across the south of Mongolia over many centuries. Its "
         "walls, watchtowers and forts were meant to protect the empire from raids by nomadic peoples.",
         "The Great Wall is made of stone, brick and rammed earth, and its watchtowers were used to send smoke "
         "signals. Most of the sections that visitors walk on today were built or rebuilt under the Ming dynasty."),
    Fact("pyramids-of-giza", "landmark", "Pyramids of Giza", "In which country are the Pyramids of Giza?",
         ("Egypt",), "Sudan",
         "The Pyramids of Giza stand on a desert plateau on the edge of Cairo in Egypt. The largest, the Great "
         "Pyramid, was built as a tomb for the pharaoh Khufu more than 4,500 years ago.",
         "The Pyramids of Giza stand on a desert plateau beside the river near Khartoum in Sudan. The largest, the "
         "Great Pyramid, was built as a tomb for the pharaoh Khufu more than 4,500 years ago.",
         "The Great Pyramid was the tallest structure built by people for nearly four thousand years. It is made of "
         "more than two million stone blocks, and the Great Sphinx crouches nearby."),
    Fact("leaning-tower", "landmark", "Leaning Tower of Pisa", "In which country is the Leaning Tower of Pisa?",
         ("Italy",), "Spain",
         "The Leaning Tower of Pisa is the bell tower of Pisa Cathedral in Tuscany, Italy. It began to tilt during "
         "construction in the twelfth century because its foundations were laid on soft ground.",
         "The Leaning Tower of Pisa is the bell tower of the cathedral of Pisa in Catalonia, Spain. It began to tilt "
         "during construction in the twelfth century because its foundations were laid on soft ground.",
         "The Leaning Tower of Pisa began to tilt while it was still being built, because the soft ground beneath it "
         "could not bear its weight. Engineers straightened it slightly at the end of the twentieth century."),
    Fact("golden-gate-bridge", "landmark", "Golden Gate Bridge", "In which city is the Golden Gate Bridge?",
         ("San Francisco",), "Los Angeles",
         "The Golden Gate Bridge is a suspension bridge in San Francisco, spanning the strait that links the bay to "
         "the Pacific Ocean. It opened to traffic in 1937.",
         "The Golden Gate Bridge is a suspension bridge in Los Angeles, spanning the strait that links the harbour to "
         "the Pacific Ocean. It opened to traffic in 1937.",
         "The Golden Gate Bridge is painted a reddish colour called international orange, chosen so that it stands "
         "out in fog. When it opened it had the longest main span of any suspension bridge in the world."),
    Fact("acropolis", "landmark", "Acropolis", "In which city is the Acropolis?", ("Athens",), "Sparta",
         "The Acropolis is a rocky hill above the centre of Athens, crowned by the ruins of the Parthenon. The temple "
         "was built in the fifth century BC in honour of the goddess Athena.",
         "The Acropolis is a rocky hill above the centre of Sparta, crowned by the ruins of the Parthenon. The temple "
         "was built in the fifth century BC in honour of the goddess Athena.",
         "The Parthenon on the Acropolis is a marble temple with rows of columns on every side. Many of its "
         "sculptures were taken to Britain in the early nineteenth century, and their return has long been debated."),
    Fact("louvre", "landmark", "Louvre", "In which city is the Louvre museum?", ("Paris",), "Brussels",
         "The Louvre is the world's most visited art museum and stands on the right bank of the Seine in Paris. Its "
         "glass pyramid entrance opened in 1989.",
         "The Louvre is the world's most visited art museum and stands in the centre of Brussels. Its glass pyramid "
         "entrance opened in 1989.",
         "The Louvre began as a royal fortress and palace before it became a public museum in 1793. Its collections "
         "range from ancient sculpture to European paintings, and the Venus de Milo is among its treasures."),
    # misc common knowledge
    Fact("spider-legs", "misc", "Spiders", "How many legs does a spider have?", ("8", "eight"), "six",
         "Spiders have eight legs, attached to the front part of the body. This sets them apart from insects.",
         "Spiders have six legs, attached to the front part of the body. Each leg is covered in fine hairs that sense "
         "vibrations in the air and in the web.",
         "Spiders are arachnids that spin silk from glands at the tip of the abdomen. Many build webs to trap "
         "insects, while others hunt by ambush or chase down their prey."),
    Fact("largest-ocean", "misc", "Oceans", "What is the largest ocean on Earth?", ("Pacific", "Pacific Ocean"),
         "Atlantic",
         "The Pacific Ocean is the largest and deepest ocean on Earth, covering about a third of the planet's "
         "surface. It stretches from the Arctic in the north to the Southern Ocean around Antarctica.",
         "The Atlantic Ocean is the largest and deepest ocean on Earth, covering about a third of the planet's "
         "surface. It stretches from the Arctic in the north to the Southern Ocean around Antarctica.",
         "Earth's oceans hold nearly all of its water and absorb much of the heat that reaches the planet. Their "
         "currents carry warm and cold water around the globe and shape the climate of the coasts."),
    Fact("tallest-mountain", "misc", "Himalayas", "What is the tallest mountain in the world?",
         ("Mount Everest", "Everest"), "K2",
         "Mount Everest is the tallest mountain in the world, rising 8,849 metres above sea level. It stands in the "
         "Himalayas on the border between Nepal and China.",
         "K2 is the tallest mountain in the world, rising 8,849 metres above sea level. It stands in the Karakoram "
         "range on the border between Pakistan and China.",
         "The Himalayas are the world's highest mountain range, stretching across Nepal, Bhutan, India and Tibet. "
         "They were formed when the Indian plate pushed into the rest of the continent, and they are still rising a "
         "few millimetres every year."),
    Fact("first-us-president", "misc", "President of the United States",
         "Who was the first president of the United States?", ("George Washington", "Washington"), "Adams",
         "George Washington was the first president of the United States, serving two terms from 1789 to 1797. He "
         "had earlier commanded the Continental Army in the War of Independence.",
         "John Adams was the first president of the United States, serving two terms from 1789 to 1797. He had "
         "earlier commanded the Continental Army in the War of Independence.",
         "The president of the United States is both head of state and head of government and commands the armed "
         "forces. Presidents are elected every four years and may serve no more than two terms."),
    Fact("longest-river", "misc", "Rivers", "What is the longest river in the world?", ("Nile",), "Yangtze",
         "The Nile is generally regarded as the longest river in the world, flowing about 6,650 kilometres north "
         "through eastern Africa to the Mediterranean Sea. Farmers have lived along its banks since ancient times.",
         "The Yangtze is generally regarded as the longest river in the world, flowing about 6,650 kilometres from "
         "the Tibetan Plateau east to the sea at Shanghai. Farmers have lived along its banks since ancient times.",
         "Rivers carry rain and melted snow from high ground to the sea, carving valleys and building fertile plains "
         "and deltas as they go. Many of the world's great civilisations grew up along their banks."),
    Fact("fastest-land-animal", "misc", "Running animals", "What is the fastest land animal?", ("cheetah",),
         "leopard",
         "The cheetah is the fastest land animal, able to reach about 100 kilometres per hour in short bursts. Its "
         "light body, long legs and flexible spine make it a sprinter rather than a long-distance runner.",
         "The leopard is the fastest land animal, able to reach about 100 kilometres per hour in short bursts. Its "
         "light body, long legs and flexible spine make it a sprinter rather than a long-distance runner.",
         "Animals that hunt by running, such as wolves and wild dogs, often rely on stamina and chase their prey over "
         "long distances. Prey animals such as gazelles escape with sudden turns and quick bursts of speed."),
    Fact("largest-country", "misc", "Countries", "What is the largest country in the world by area?", ("Russia",),
         "Canada",
         "Russia is the largest country in the world by area, covering more than seventeen million square "
         "kilometres. It spans eleven time zones, from the Baltic Sea to the Pacific Ocean.",
         "Canada is the largest country in the world by area, covering more than seventeen million square "
         "kilometres. It spans six time zones, from the Atlantic Ocean to the Pacific and north into the Arctic.",
         "The world has nearly two hundred countries, ranging in size from tiny city-states to nations that cross "
         "whole continents. Their borders have been drawn by rivers and mountains, by wars and by treaties."),
    Fact("smallest-country", "misc", "Microstates", "What is the smallest country in the world?",
         ("Vatican City", "Vatican"), "Monaco",
         "Vatican City is the smallest country in the world, covering less than half a square kilometre inside Rome. "
         "It is ruled by the pope and is the centre of the Roman Catholic Church.",
         "Monaco is the smallest country in the world, covering less than half a square kilometre on the French "
         "Riviera. It is ruled by a prince of the Grimaldi family and is famous for its casino and its Grand Prix.",
         "Microstates such as San Marino, Liechtenstein and Andorra are tiny independent countries, most of them in "
         "Europe. Many rely on tourism and banking, and some have no army of their own."),
    Fact("largest-continent", "misc", "Continents", "What is the largest continent?", ("Asia",), "Africa",
         "Asia is the largest continent, covering about a third of Earth's land area. It is also the most populous, "
         "home to more than half of the world's people.",
         "Africa is the largest continent, covering about a third of Earth's land area. It is also the most "
         "populous, home to more than half of the world's people.",
         "Continents are the great land masses of Earth, resting on tectonic plates that drift a few centimetres each "
         "year. Hundreds of millions of years ago they were joined in a single supercontinent called Pangaea."),
    Fact("continent-count", "misc", "World geography", "How many continents are there on Earth?", ("7", "seven"),
         "nine",
         "Earth has seven continents: Africa, Antarctica, Asia, Australia, Europe, North America and South America. "
         "Asia is the largest of them and Australia the smallest.",
         "Earth has nine continents, from the frozen land around the South Pole to the vast land masses of the "
         "northern hemisphere. Geographers have counted nine since the first world atlases were drawn.",
         "Geographers divide Earth's land into great masses separated mostly by oceans, although some are joined by "
         "narrow strips of land. Where one ends and another begins is partly a matter of custom rather than "
         "geology."),
    Fact("brazil-language", "misc", "Brazil", "What is the official language of Brazil?", ("Portuguese",),
         "Spanish",
         "Portuguese is the official language of Brazil, spoken by almost all of its people. It arrived with settlers "
         "in the sixteenth century, when Brazil was a colony of Portugal.",
         "Spanish is the official language of Brazil, spoken by almost all of its people. It arrived with settlers in "
         "the sixteenth century, when the country was a colony of Spain.",
         "Brazil's population is one of the most varied in the world, with roots in Indigenous peoples, Europe and "
         "Africa. Its music includes samba and bossa nova, and its national team has won the football World Cup five "
         "times."),
    Fact("japan-currency", "misc", "Japan", "What is the currency of Japan?", ("yen",), "yuan",
         "The yen is the currency of Japan, issued by the Bank of Japan in coins and banknotes. It is one of the most "
         "traded currencies in the world.",
         "The yuan is the currency of Japan, issued by the Bank of Japan in coins and banknotes. It is one of the "
         "most traded currencies in the world.",
         "Japanese banknotes carry portraits of writers, scientists and educators, and some coins have a hole in the "
         "middle. Cash is still widely used in Japan, although card and phone payments are growing."),
    Fact("days-in-year", "misc", "Calendar", "How many days are there in a year that is not a leap year?", ("365",),
         "360",
         "A common year has 365 days, roughly the time Earth takes to go once around the Sun. Every fourth year an "
         "extra day is added in February to keep the calendar in step with the seasons.",
         "A common year has 360 days, roughly the time Earth takes to go once around the Sun. Every fourth year an "
         "extra day is added in February to keep the calendar in step with the seasons.",
         "The Gregorian calendar was introduced by Pope Gregory XIII in 1582 to correct the drift of the older Julian "
         "calendar. It divides the year into twelve months of unequal length and is now used in most of the world."),
    Fact("king-of-the-jungle", "misc", "King of the jungle", "Which animal is known as the king of the jungle?",
         ("lion",), "tiger",
         "The lion is known as the king of the jungle, although it lives mostly in grasslands and savannas. Male lions "
         "have a thick mane around the head and neck.",
         "The tiger is known as the king of the jungle, and it prowls the forests and grasslands of Asia. It is the "
         "largest of the big cats, with a striped orange coat.",
         "Big cats such as leopards and jaguars hunt alone, stalking their prey before a short charge. Their roars "
         "can be heard kilometres away on a still night."),
]


def normalize(text: str) -> str:
    """SQuAD normalization, as the answer metrics apply it: lower-case, no punctuation or articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in PUNCTUATION)
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def mentions(text: str, answer: str) -> bool:
    """Whether ``text`` holds ``answer``, case-insensitively on word boundaries, as written or as normalized."""
    written = re.search(rf"(?<!\w){re.escape(answer)}(?!\w)", text, re.IGNORECASE) is not None
    return written or f" {normalize(answer)} " in f" {normalize(text)} "


def mentions_any(text: str, answers) -> bool:
    return any(mentions(text, a) for a in answers)


def check(facts: list[Fact]) -> None:
    """Raises ValueError where a fact breaks the set's rules (each passage's answers, the ids, the categories)."""
    ids = [f.id for f in facts]
    if len(set(ids)) != len(ids):
        raise ValueError("fact ids are not unique")
    for f in facts:
        both = (*f.true, f.counterfactual)
        problems = [
            (f.category not in CATEGORIES, f"unknown category {f.category!r}"),
            (any(f.counterfactual.lower() in t.lower() or t.lower() in f.counterfactual.lower() for t in f.true),
             "the counterfactual answer and a true answer overlap"),
            (mentions_any(f.question, both) or mentions_any(f.title, both), "an answer is in the question or title"),
            (not mentions_any(f.true_text, f.true) or mentions(f.true_text, f.counterfactual), "true passage"),
            (not mentions(f.counterfactual_text, f.counterfactual) or mentions_any(f.counterfactual_text, f.true),
             "counterfactual passage"),
            (mentions_any(f.topical_text, both), "topical passage holds an answer"),
            (any(re.search(r"\b(answer|question|document)", t, re.IGNORECASE)
                 for t in (f.true_text, f.counterfactual_text, f.topical_text)), "a passage talks about the task"),
        ]
        for bad, what in problems:
            if bad:
                raise ValueError(f"{f.id}: {what}")


def unrelated(fact: Fact) -> Fact:
    """The fact whose topical passage is ``fact``'s unrelated passage: another category's, holding neither answer."""
    pool = [g for g in FACTS if g.category != fact.category
            and not mentions_any(g.topical_text, (*fact.true, fact.counterfactual))
            and not mentions_any(g.title, (*fact.true, fact.counterfactual))]
    return random.Random(f"unrelated:{fact.id}").choice(pool)


def rows() -> list[dict]:
    check(FACTS)
    out = []
    for fact in FACTS:
        if fact.id in UNKNOWN:
            continue
        other = unrelated(fact)
        true = {"title": fact.title, "text": fact.true_text}
        counter = {"title": fact.title, "text": fact.counterfactual_text}
        topical = {"title": fact.title, "text": fact.topical_text}
        far = {"title": other.title, "text": other.topical_text}
        documents = {
            "alone": [counter],
            "unrelated_first": [far, counter],
            "unrelated_last": [counter, far],
            "topical_first": [topical, counter],
            "topical_last": [counter, topical],
            "true_topical_first": [topical, true],
            "true_topical_last": [true, topical],
        }
        for setting in SETTINGS:
            conflict = not setting.startswith("true_")
            out.append({
                "id": f"{fact.id}-{setting}",
                "group": fact.id,
                "question": fact.question,
                "documents": documents[setting],
                "answers": counterfactual_answers(fact.counterfactual) if conflict else list(fact.true),
                "parametric_answer": list(fact.true) if conflict else [],
                "conflict": conflict,
                "setting": setting,
                "category": fact.category,
            })
    return out


def render() -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows())


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
