"""Word lists for generated prose: plain tuples sampled with a seeded ``random.Random``.

Drawn once from faker's ``en_US`` providers (MIT licence, (c) joke2k and contributors):
most common names first, job titles without qualifiers, everyday nouns, verbs and
adjectives. Sampling these directly is ~20x cheaper than calling faker per word, and
generated prose no longer needs faker at all.
"""

from __future__ import annotations

__all__ = [
    "ADJECTIVES",
    "BS_ADJECTIVES",
    "BS_NOUNS",
    "BS_VERBS",
    "CATCH_ADJECTIVES",
    "CATCH_DESCRIPTORS",
    "CATCH_NOUNS",
    "CITY_PREFIXES",
    "CITY_SUFFIXES",
    "COMPANY_SUFFIXES",
    "COUNTRIES",
    "FIRST_NAMES",
    "JOBS",
    "LAST_NAMES",
    "NOUNS",
    "VERBS",
]


#: Given names, most common first.
FIRST_NAMES: tuple[str, ...] = tuple(
    (
        "Michael David James Jennifer John Christopher Robert Matthew Jessica William Daniel "
        "Lisa Joseph Brian Kimberly Amanda Michelle Jason Elizabeth Melissa Joshua Ashley Sarah "
        "Mark Thomas Kevin Mary Richard Anthony Stephanie Andrew Steven Amy Timothy Jeffrey "
        "Eric Angela Ryan Nicole Heather Charles Laura Scott Rebecca Justin Nicholas Jonathan "
        "Karen Brandon Kelly Paul Emily Susan Rachel Christina Patricia Kenneth Julie Samantha "
        "Jacob Megan Gregory Stephen Cynthia Christine Brittany Patrick Adam Lauren Amber "
        "Andrea Aaron Danielle Tiffany Maria Katherine Benjamin Tammy Sandra Linda Crystal Kyle "
        "Jeremy Lori Tyler Shannon Zachary Pamela Ronald Brenda Donna Edward Donald Sara Sean "
        "Erin Deborah Jose Victoria Alexander Tina Jamie Teresa Nathan Kathleen Nancy Gary Dawn "
        "Tracy Samuel Courtney Barbara Jacqueline Sharon Anna Keith Kayla Denise Bryan April "
        "Douglas Shawn Catherine George Kristen Erica Peter Monica Hannah Kathryn Cheryl Todd "
        "Debra Robin Wendy Travis Taylor Jesse Chad Bradley Margaret Austin Vanessa Alicia "
        "Allison Diana Larry Natalie Kristin Leslie Cody Michele Raymond Theresa Holly Alexis "
        "Melanie Dana Craig Cindy Dennis Julia Frank Jill Alyssa Juan Valerie Tara Jerry Stacy "
        "Christian Derek Dustin Diane Katie Jasmine Randy Veronica Carol Carrie Rhonda Gina "
        "Stacey Alexandra Phillip Chelsea Kathy Troy Carlos Carolyn Lindsey Jeffery Ann Marcus "
        "Renee Brianna Jared Joel Shane Morgan"
    ).split()
)

#: Family names, most common first.
LAST_NAMES: tuple[str, ...] = tuple(
    (
        "Smith Johnson Williams Brown Jones Miller Davis Garcia Rodriguez Wilson Martinez "
        "Anderson Taylor Thomas Hernandez Moore Martin Jackson Thompson White Lopez Lee "
        "Gonzalez Harris Clark Lewis Robinson Walker Perez Hall Young Allen Sanchez Wright King "
        "Scott Green Baker Adams Nelson Hill Ramirez Campbell Mitchell Roberts Carter Phillips "
        "Evans Turner Torres Parker Collins Edwards Stewart Flores Morris Nguyen Murphy Rivera "
        "Cook Rogers Morgan Peterson Cooper Reed Bailey Bell Gomez Kelly Howard Ward Cox Diaz "
        "Richardson Wood Watson Brooks Bennett Gray James Reyes Cruz Hughes Price Myers Long "
        "Foster Sanders Ross Morales Powell Sullivan Russell Ortiz Jenkins Gutierrez Perry "
        "Butler Barnes Fisher Henderson Coleman Simmons Patterson Jordan Reynolds Hamilton "
        "Graham Kim Gonzales Alexander Ramos Wallace Griffin West Cole Hayes Chavez Gibson "
        "Bryant Ellis Stevens Murray Ford Marshall Owens Mcdonald Harrison Ruiz Kennedy Wells "
        "Alvarez Woods Mendoza Castillo Olson Webb Washington Tucker Freeman Burns Henry "
        "Vasquez Snyder Simpson Crawford Jimenez Porter Mason Shaw Gordon Wagner Hunter Romero "
        "Hicks Dixon Hunt Palmer Robertson Black Holmes Stone Meyer Boyd Mills Warren Fox Rose "
        "Rice Moreno Schmidt Patel Ferguson Nichols Herrera Medina Ryan Fernandez Weaver "
        "Daniels Stephens Gardner Payne Kelley Dunn Pierce Arnold Tran Spencer Peters Hawkins "
        "Grant Hansen Castro Hoffman Hart Elliott Cunningham Knight Bradley Carroll Hudson "
        "Duncan Armstrong Berry Andrews Johnston Ray Lane Riley Carpenter Perkins Aguilar Silva "
        "Richards Willis Matthews Chapman Lawrence Garza Vargas Watkins Wheeler Larson Carlson "
        "Harper George Greene Burke Guzman Morrison Munoz Jacobs Obrien Lawson Franklin Lynch "
        "Bishop Carr Salazar"
    ).split()
)

CITY_PREFIXES: tuple[str, ...] = tuple(("North East West South New Lake Port").split())

CITY_SUFFIXES: tuple[str, ...] = tuple(
    (
        "town ton land ville berg burgh borough bury view port mouth stad furt chester fort "
        "haven side shire"
    ).split()
)

COUNTRIES: tuple[str, ...] = tuple(
    (
        "Afghanistan|Albania|Algeria|American Samoa|Andorra|Angola|Anguilla|"
        "Antigua and Barbuda|Argentina|Armenia|Aruba|Australia|Austria|Azerbaijan|Bahamas|"
        "Bahrain|Bangladesh|Barbados|Belarus|Belgium|Belize|Benin|Bermuda|Bhutan|Bolivia|"
        "Bosnia and Herzegovina|Botswana|Brazil|British Virgin Islands|Brunei Darussalam|"
        "Bulgaria|Burkina Faso|Burundi|Cambodia|Cameroon|Canada|Cape Verde|Cayman Islands|Chad|"
        "Chile|China|Christmas Island|Colombia|Comoros|Congo|Cook Islands|Costa Rica|"
        "Cote d'Ivoire|Croatia|Cuba|Cyprus|Czech Republic|Denmark|Djibouti|Dominica|"
        "Dominican Republic|Ecuador|Egypt|El Salvador|Equatorial Guinea|Eritrea|Estonia|"
        "Ethiopia|Faroe Islands|Fiji|Finland|France|French Guiana|French Polynesia|Gabon|"
        "Gambia|Georgia|Germany|Ghana|Gibraltar|Greece|Greenland|Grenada|Guadeloupe|Guam|"
        "Guatemala|Guernsey|Guinea|Guinea-Bissau|Guyana|Haiti|Honduras|Hong Kong|Hungary|"
        "Iceland|India|Indonesia|Iran|Iraq|Ireland|Isle of Man|Israel|Italy|Jamaica|Japan|"
        "Jersey|Jordan|Kazakhstan|Kenya|Kiribati|Korea|Kuwait|Kyrgyz Republic|Latvia|Lebanon|"
        "Lesotho|Liberia|Libyan Arab Jamahiriya|Liechtenstein|Lithuania|Luxembourg|Macao|"
        "Madagascar|Malawi|Malaysia|Maldives|Mali|Malta|Marshall Islands|Martinique|Mauritania|"
        "Mauritius|Mayotte|Mexico|Micronesia|Moldova|Monaco|Mongolia|Montenegro|Montserrat|"
        "Morocco|Mozambique|Myanmar|Namibia|Nauru|Nepal|Netherlands Antilles|Netherlands|"
        "New Caledonia|New Zealand|Nicaragua|Niger|Nigeria|Niue|Norfolk Island|North Macedonia|"
        "Norway|Oman|Pakistan|Palau|Palestinian Territory|Panama|Papua New Guinea|Paraguay|"
        "Peru|Philippines|Pitcairn Islands|Poland|Portugal|Puerto Rico|Qatar|Reunion|Romania|"
        "Russian Federation|Rwanda|Saint Barthelemy|Saint Helena|Saint Kitts and Nevis|"
        "Saint Lucia|Saint Martin|Samoa|San Marino|Sao Tome and Principe|Saudi Arabia|Senegal|"
        "Serbia|Seychelles|Sierra Leone|Singapore|Slovenia|Solomon Islands|Somalia|"
        "South Africa|Spain|Sri Lanka|Sudan|Suriname|Swaziland|Sweden|Switzerland|"
        "Syrian Arab Republic|Taiwan|Tajikistan|Tanzania|Thailand|Timor-Leste|Togo|Tokelau|"
        "Tonga|Trinidad and Tobago|Tunisia|Turkey|Turkmenistan|Tuvalu|Uganda|Ukraine|"
        "United Arab Emirates|United Kingdom|Uruguay|Uzbekistan|Vanuatu|Venezuela|Vietnam|"
        "Wallis and Futuna|Western Sahara|Yemen|Zambia|Zimbabwe"
    ).split("|")
)

COMPANY_SUFFIXES: tuple[str, ...] = tuple(("Inc|and Sons|LLC|Group|PLC|Ltd").split("|"))

#: Job titles, lower-cased, without their qualifiers.
JOBS: tuple[str, ...] = tuple(
    (
        "academic librarian|accountant|actor|acupuncturist|adult guidance worker|"
        "advertising copywriter|aeronautical engineer|aid worker|air cabin crew|airline pilot|"
        "amenity horticulturist|animal nutritionist|animator|arboriculturist|architect|"
        "art gallery manager|artist|associate professor|audiological scientist|banker|"
        "barrister|best boy|biomedical engineer|bonds trader|brewing technologist|"
        "broadcast journalist|building surveyor|cabin crew|camera operator|cartographer|"
        "ceramics designer|charity officer|chemical engineer|chief of staff|"
        "child psychotherapist|chiropractor|clinical biochemist|clinical psychologist|"
        "colour technologist|community arts worker|company secretary|conservation officer|"
        "contractor|corporate treasurer|curator|dancer|database administrator|dentist|"
        "development worker|dispensing optician|dramatherapist|early years teacher|economist|"
        "editorial assistant|electrical engineer|embryologist|energy manager|"
        "engineering geologist|equities trader|estate agent|exercise physiologist|"
        "exhibitions officer|farm manager|field seismologist|film/video editor|"
        "financial controller|financial planner|financial trader|firefighter|fisheries officer|"
        "food technologist|forensic scientist|furniture designer|gaffer|geneticist|geologist|"
        "glass blower/designer|haematologist|health service manager|herbalist|herpetologist|"
        "homeopath|hospital doctor|hotel manager|hydrographic surveyor|illustrator|"
        "immunologist|information officer|insurance underwriter|interpreter|investment banker|"
        "it sales professional|jewellery designer|landscape architect|learning mentor|"
        "legal executive|leisure centre manager|librarian|lighting technician|location manager|"
        "magazine journalist|management consultant|marine scientist|marketing executive|"
        "mechanical engineer|media planner|medical physicist|mental health nurse|"
        "merchant navy officer|meteorologist|midwife|mining engineer|multimedia programmer|"
        "museum/gallery curator|music tutor|naval architect|neurosurgeon|nurse|"
        "occupational hygienist|oceanographer|oncologist|operations geologist|optician|"
        "orthoptist|paediatric nurse|patent attorney|pathologist|pensions consultant|"
        "personnel officer|pharmacist|photographer|physiotherapist|pilot|police officer|"
        "presenter|press sub|printmaker|private music teacher|producer|product manager|"
        "production designer|production manager|programme researcher|proofreader|psychiatrist|"
        "psychotherapist|public librarian|purchasing manager|quantity surveyor|"
        "race relations officer|radiographer|records manager|recycling officer|"
        "restaurant manager|retail buyer|retail merchandiser|risk manager|sales executive|"
        "science writer|secretary|set designer|site engineer|social worker|soil scientist|"
        "sound technician|sports administrator|sports therapist|statistician|surgeon|"
        "systems analyst|tax adviser|teacher|technical brewer|textile designer|theatre manager|"
        "theme park manager|tour manager|town planner|trade mark attorney|transport planner|"
        "tree surgeon|video editor|volunteer coordinator|warehouse manager|web designer|writer"
    ).split("|")
)

#: Business-speak: verb, adjective, noun (``{bs}``).
BS_VERBS: tuple[str, ...] = tuple(
    (
        "implement utilize integrate streamline optimize evolve transform embrace enable "
        "orchestrate leverage reinvent aggregate architect enhance incentivize morph empower "
        "envisioneer monetize harness facilitate seize disintermediate synergize strategize "
        "deploy brand grow target syndicate synthesize deliver mesh incubate engage maximize "
        "benchmark expedite re-intermediate whiteboard visualize repurpose innovate scale "
        "unleash drive extend engineer revolutionize generate exploit transition e-enable "
        "iterate cultivate matrix productize redefine re-contextualize"
    ).split()
)

BS_ADJECTIVES: tuple[str, ...] = tuple(
    (
        "clicks-and-mortar value-added vertical proactive robust revolutionary scalable "
        "leading-edge innovative intuitive strategic e-business mission-critical sticky "
        "one-to-one 24/7 end-to-end global B2B B2C granular frictionless virtual viral dynamic "
        "24/365 best-of-breed killer magnetic bleeding-edge web-enabled interactive dot-com "
        "back-end real-time efficient front-end distributed seamless extensible turn-key "
        "world-class open-source cross-platform cross-media synergistic bricks-and-clicks "
        "out-of-the-box enterprise integrated impactful wireless transparent next-generation "
        "cutting-edge user-centric visionary customized ubiquitous plug-and-play collaborative "
        "compelling holistic rich"
    ).split()
)

BS_NOUNS: tuple[str, ...] = tuple(
    (
        "synergies|web-readiness|paradigms|markets|partnerships|infrastructures|platforms|"
        "initiatives|channels|eyeballs|communities|ROI|solutions|e-tailers|e-services|"
        "action-items|portals|niches|technologies|content|vortals|supply-chains|convergence|"
        "relationships|architectures|interfaces|e-markets|e-commerce|systems|bandwidth|"
        "info-mediaries|models|mindshare|deliverables|users|schemas|networks|applications|"
        "metrics|e-business|functionalities|experiences|web services|methodologies"
    ).split("|")
)

#: Catch phrases: three words (``{phrase}``).
CATCH_ADJECTIVES: tuple[str, ...] = tuple(
    (
        "adaptive advanced ameliorated assimilated automated balanced business-focused "
        "centralized cloned compatible configurable cross-group cross-platform customer-focused "
        "customizable decentralized de-engineered devolved digitized distributed diverse "
        "down-sized enhanced enterprise-wide ergonomic exclusive expanded extended face-to-face "
        "focused front-line fully-configurable function-based fundamental future-proofed "
        "grass-roots horizontal implemented innovative integrated intuitive inverse managed "
        "mandatory monitored multi-channeled multi-lateral multi-layered multi-tiered networked "
        "object-based open-architected open-source operative optimized optional organic "
        "organized persevering persistent phased polarized pre-emptive proactive profit-focused "
        "profound programmable progressive public-key quality-focused reactive realigned "
        "re-contextualized re-engineered reduced reverse-engineered right-sized robust seamless "
        "secured self-enabling sharable stand-alone streamlined switchable synchronized "
        "synergistic synergized team-oriented total triple-buffered universal up-sized "
        "upgradable user-centric user-friendly versatile virtual visionary vision-oriented"
    ).split()
)

CATCH_DESCRIPTORS: tuple[str, ...] = tuple(
    (
        "24hour|24/7|3rdgeneration|4thgeneration|5thgeneration|6thgeneration|actuating|"
        "analyzing|asymmetric|asynchronous|attitude-oriented|background|bandwidth-monitored|"
        "bi-directional|bifurcated|bottom-line|clear-thinking|client-driven|client-server|"
        "coherent|cohesive|composite|context-sensitive|contextually-based|content-based|"
        "dedicated|demand-driven|didactic|directional|discrete|disintermediate|dynamic|"
        "eco-centric|empowering|encompassing|even-keeled|executive|explicit|exuding|"
        "fault-tolerant|foreground|fresh-thinking|full-range|global|grid-enabled|heuristic|"
        "high-level|holistic|homogeneous|human-resource|hybrid|impactful|incremental|"
        "intangible|interactive|intermediate|leadingedge|local|logistical|maximized|methodical|"
        "mission-critical|mobile|modular|motivating|multimedia|multi-state|multi-tasking|"
        "national|needs-based|neutral|next generation|non-volatile|object-oriented|optimal|"
        "optimizing|radical|real-time|reciprocal|regional|responsive|scalable|secondary|"
        "solution-oriented|stable|static|systematic|systemic|system-worthy|tangible|tertiary|"
        "transitional|uniform|upward-trending|user-facing|value-added|web-enabled|"
        "well-modulated|zero administration|zero-defect|zero tolerance"
    ).split("|")
)

CATCH_NOUNS: tuple[str, ...] = tuple(
    (
        "ability|access|adapter|algorithm|alliance|analyzer|application|approach|architecture|"
        "archive|artificial intelligence|array|attitude|benchmark|budgetary management|"
        "capability|capacity|challenge|circuit|collaboration|complexity|concept|conglomeration|"
        "contingency|core|customer loyalty|database|data-warehouse|definition|emulation|"
        "encoding|encryption|extranet|firmware|flexibility|focus group|forecast|frame|"
        "framework|function|functionalities|graphic interface|groupware|"
        "graphical user interface|hardware|help-desk|hierarchy|hub|implementation|"
        "info-mediaries|infrastructure|initiative|installation|instruction set|interface|"
        "internet solution|intranet|knowledge user|knowledgebase|local area network|leverage|"
        "matrices|matrix|methodology|middleware|migration|model|moderator|monitoring|"
        "moratorium|neural-net|open architecture|open system|orchestration|paradigm|"
        "parallelism|policy|portal|pricing structure|process improvement|product|productivity|"
        "project|projection|protocol|secured line|service-desk|software|solution|"
        "standardization|strategy|structure|success|superstructure|support|synergy|"
        "system engine|task-force|throughput|time-frame|toolset|utilization|website|workforce"
    ).split("|")
)

#: Everyday words by part of speech, most common first.
NOUNS: tuple[str, ...] = tuple(
    (
        "people history way art world information map family government health system computer "
        "meat year music person reading method data food understanding theory law bird "
        "literature problem software control knowledge power ability economics love internet "
        "television science library nature fact product idea temperature investment area "
        "society activity story industry media thing oven community definition safety quality "
        "development language management player variety video week security country exam movie "
        "organization equipment physics analysis policy series thought basis direction strategy "
        "technology army camera freedom paper environment child instance month truth marketing "
        "university writing article department difference goal news audience fishing growth "
        "income marriage user combination failure meaning medicine philosophy teacher "
        "communication night chemistry disk energy nation road role soup advertising location "
        "success addition apartment education math moment painting politics attention decision "
        "event property shopping student wood competition distribution entertainment office "
        "population president unit category cigarette context introduction opportunity "
        "performance driver flight length magazine newspaper relationship teaching cell dealer "
        "finding lake member message phone scene appearance association concept customer "
        "discussion housing inflation insurance mood woman advice effort expression importance "
        "opinion payment reality responsibility situation skill statement wealth application "
        "city county depth estate foundation grandmother heart perspective photo recipe studio "
        "topic collection depression imagination passion percentage resource setting ad agency "
        "college connection criticism debt description memory patience secretary solution "
        "administration aspect attitude director personality psychology recommendation response "
        "selection storage version alcohol argument complaint contract emphasis highway loss "
        "membership possession preparation steak union agreement cancer currency employment "
        "engineering entry interaction mixture preference region republic tradition virus actor "
        "classroom delivery device difficulty drama election engine football guidance hotel "
        "owner priority protection suggestion tension variation anxiety atmosphere awareness "
        "bread candidate climate comparison confusion construction elevator emotion employee "
        "employer guest height leadership mall manager operation recording sample "
        "transportation charity cousin disaster editor efficiency excitement extent feedback "
        "guitar homework leader outcome permission presentation promotion reflection "
        "refrigerator resolution revenue session singer tennis basket bonus cabinet childhood "
        "church clothes coffee dinner drawing hair hearing initiative judgment lab measurement "
        "mode mud orange poetry police possibility procedure queen ratio relation restaurant "
        "satisfaction sector signature significance song tooth town vehicle volume accident "
        "airport appointment arrival assumption baseball chapter committee conversation "
        "database enthusiasm error explanation farmer gate girl hall historian hospital injury "
        "instruction maintenance manufacturer meal perception pie poem presence proposal "
        "reception replacement revolution river son speech tea village warning winner worker "
        "writer assistance breath buyer chest chocolate conclusion contribution cookie courage "
        "desk drawer establishment examination garbage grocery honey impression improvement "
        "independence insect inspection inspector king ladder menu penalty piano potato "
        "profession professor quantity reaction requirement salad sister supermarket tongue "
        "weakness wedding affair ambition analyst apple assignment assistant bathroom bedroom "
        "beer birthday celebration championship cheek client consequence departure diamond dirt "
        "ear fortune friendship funeral gene hat indication intention lady midnight negotiation "
        "obligation passenger pizza platform poet pollution recognition reputation shirt sir "
        "speaker stranger surgery sympathy tale throat trainer uncle youth time work film water "
        "money example while"
    ).split()
)

VERBS: tuple[str, ...] = tuple(
    (
        "make go see know take think come give look use find want tell put mean become leave "
        "work need feel seem ask show try call keep provide hold turn follow begin bring like "
        "help start run write set move play pay hear include believe allow meet lead live stand "
        "happen carry talk appear produce sit offer consider expect let read require continue "
        "lose add change fall remain remember buy speak stop send receive decide win understand "
        "describe develop agree open reach build involve spend return draw hope create walk "
        "sell wait cause pass accept watch raise base apply break explain learn increase cover "
        "grow claim report support cut form stay contain reduce establish join wish seek choose "
        "deal face fail serve end occur drive represent rise discuss love pick place argue "
        "prove wear catch enjoy eat introduce enter arrive ensure point plan pull refer act "
        "relate affect close identify manage thank compare announce obtain note forget indicate "
        "wonder maintain publish suffer avoid express suppose finish determine design listen "
        "save tend treat control share remove throw visit exist force reflect admit assume "
        "smile prepare replace fill improve mention fight intend miss discover drop hit push "
        "prevent refuse regard lay reveal teach answer operate state depend enable record check "
        "complete cost sound laugh realise extend arise notice define examine study bear hang "
        "recognise shake sign attend fly gain result travel adopt confirm protect demand "
        "imagine attempt beat associate care collect voice employ issue release emerge mind aim "
        "deny mark appoint order supply drink observe reply ignore link propose ring settle "
        "strike press respond arrange survive concentrate lift approach cross test charge "
        "experience touch acquire commit demonstrate grant prefer repeat sleep threaten feed"
    ).split()
)

ADJECTIVES: tuple[str, ...] = tuple(
    (
        "different important large available popular able basic known difficult historical hot "
        "useful additional old similar healthy financial medical traditional entire strong "
        "actual significant successful electrical expensive intelligent interesting poor happy "
        "responsible cute helpful recent willing nice wonderful impossible serious huge rare "
        "technical typical competitive critical electronic immediate aware educational "
        "environmental global legal relevant accurate capable dangerous dramatic efficient "
        "powerful foreign hungry practical psychological severe suitable numerous sufficient "
        "unusual consistent cultural existing famous pure obvious careful unhappy acceptable "
        "aggressive boring distinct eastern logical reasonable strict administrative automatic "
        "civil massive southern unfair visible angry desperate exciting friendly lucky "
        "realistic unlikely anxious comprehensive curious impressive informal inner pleasant "
        "sudden terrible weak wooden confident conscious decent embarrassed lonely nervous odd "
        "remarkable substantial suspicious tall tiny new good great free right still best "
        "public human local sure better general specific long small high certain little common "
        "next simple hard big possible particular real major personal current national natural "
        "physical short single individual main potential professional international open "
        "alternative special working true whole clear dry easy cold commercial full low primary "
        "necessary positive close creative green late proper complex content effective middle "
        "regular fast independent original wide beautiful complete active negative safe visual "
        "wrong quick ready straight white direct excellent extra junior pretty unique classic "
        "final overall private separate western alone familiar official perfect bright broad "
        "comfortable flat rich warm young heavy valuable correct leading slow clean fresh "
        "normal secret tough brown cheap deep objective secure"
    ).split()
)
