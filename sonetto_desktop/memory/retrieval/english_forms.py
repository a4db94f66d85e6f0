"""Irregular English word forms -> their base word, for ``tokenize.stem`` (teeth -> tooth, went -> go):
the suffix stripper meets regular plurals and tenses, this table the common irregular ones, so a memory
saying "the children went" is found by "where did my child go". Written for this project.

Each line: a base word, then its forms the suffix stripper does not bring to the base's stem. Left out on
purpose, as they mean another word as often: left (leave / the left), lay (lie / lay), rose (rise / a rose),
ground (grind / the ground), bore, wound, bit (bite / a bit), lives and leaves (live / life, leave / leaf),
lit, got / gotten (get is a stop word, like do, be and have).
"""

from __future__ import annotations

_TABLE = """
arise arose arisen
awake awoke awoken
become became
begin began begun beginning
bend bent
bet betting
bite bitten
bleed bled
blow blew blown
break broke broken
breed bred
bring brought
build built
burn burnt
buy bought
catch caught
choose chose chosen
cling clung
come came
creep crept
deal dealt
die dies died dying
dig dug digging
draw drew drawn
dream dreamt
drink drank drunk
drive drove driven
eat ate eaten
fall fell fallen
feed fed
feel felt
fight fought
find found
flee fled
fly flew flown
forbid forbade forbidden
forget forgot forgotten forgetting
forgive forgave forgiven
freeze froze frozen
give gave given
go goes going went gone
grow grew grown
hang hung
hear heard
hide hid hidden
hold held
keep kept
kneel knelt
know knew known
lead led
lean leant
leap leapt
learn learnt
lend lent
lose lost
make made
mean meant
meet met
mistake mistook mistaken
overcome overcame
pay paid
ride rode ridden
ring rang rung
rise risen
run ran running
say said
see saw seen
seek sought
sell sold
send sent
sew sewn
shake shook shaken
shine shone
shoot shot
show shown
shrink shrank shrunk
sing sang sung
sink sank sunk
sit sat sitting
sleep slept
slide slid
speak spoke spoken
speed sped
spend spent
spin spun
spit spat
spring sprang sprung
stand stood
steal stole stolen
stick stuck
sting stung
stink stank stunk
strike struck stricken
swear swore sworn
sweep swept
swim swam swum swimming
swing swung
take took taken
teach taught
tear tore torn
tell told
think thought
throw threw thrown
tie ties tied tying
undergo underwent undergone
understand understood
upset upsetting
wake woke woken
wear wore worn
weave wove woven
weep wept
win won winning
withdraw withdrew withdrawn
write wrote written
analysis analyses
cactus cacti
calf calves
child children
crisis crises
criterion criteria
diagnosis diagnoses
elf elves
foot feet
fungus fungi
goose geese
grandchild grandchildren
half halves
hoof hooves
hypothesis hypotheses
knife knives
loaf loaves
man men
mouse mice
phenomenon phenomena
scarf scarves
shelf shelves
thesis theses
thief thieves
tooth teeth
wife wives
wolf wolves
woman women
"""

#: irregular form -> base word
IRREGULAR: dict[str, str] = {form: line.split()[0] for line in _TABLE.split("\n") for form in line.split()[1:]}
